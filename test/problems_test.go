package test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

func TestProblemDetails(t *testing.T) {
	s := stack.Start(t)
	me := s.SignUp("problems@example.com")
	vault := s.CreateVault(me.Token, "v")
	secret := "/v1/vaults/" + vault + "/secrets/"
	put := map[string]any{"type": "password", "value": "x"}

	tests := map[string]struct {
		method, path, token string
		body                any
		wantStatus          int
		wantType            string
	}{
		"unknown route":        {"GET", "/v1/nope", "", nil, 404, "not_found"},
		"trailing slash":       {"GET", "/v1/vaults/", me.Token, nil, 404, "not_found"},
		"wrong method":         {"PATCH", "/v1/vaults", me.Token, nil, 405, "method_not_allowed"},
		"no token":             {"GET", "/v1/vaults", "", nil, 402, "payment_required"}, // paid route: Errors rule 2
		"garbage token":        {"GET", "/v1/vaults", "not.a.jwt", nil, 401, "invalid_token"},
		"malformed JSON":       {"POST", "/v1/vaults", me.Token, `{"name":`, 400, "invalid_request"},
		"unknown field":        {"POST", "/v1/vaults", me.Token, `{"name":"x","nope":1}`, 400, "invalid_request"},
		"not an object":        {"POST", "/v1/vaults", me.Token, `[1,2]`, 400, "invalid_request"},
		"too deep":             {"POST", "/v1/vaults", me.Token, strings.Repeat("[", 65) + strings.Repeat("]", 65), 400, "invalid_request"},
		"too large":            {"PUT", secret + "big", me.Token, `{"type":"password","value":"` + strings.Repeat("a", 1<<20) + `"}`, 413, "payload_too_large"},
		"bad vault id":         {"GET", "/v1/vaults/not-a-uuid", me.Token, nil, 400, "invalid_request"},
		"unknown type":         {"PUT", secret + "x", me.Token, map[string]any{"type": "nope", "value": "x"}, 400, "invalid_request"},
		"missing value":        {"PUT", secret + "x", me.Token, map[string]any{"type": "password"}, 400, "invalid_request"},
		"past expiry":          {"PUT", secret + "x", me.Token, map[string]any{"type": "password", "value": "x", "expires_at": "2001-01-01T00:00:00Z"}, 400, "invalid_request"},
		"dot-dot segment":      {"PUT", secret + "a/../b", me.Token, put, 400, "invalid_path"},
		"dot segment":          {"PUT", secret + "a/./b", me.Token, put, 400, "invalid_path"},
		"empty segment":        {"PUT", secret + "a//b", me.Token, put, 400, "invalid_path"},
		"trailing slash path":  {"PUT", secret + "a/", me.Token, put, 400, "invalid_path"},
		"encoded slash":        {"PUT", secret + "a%2Fb", me.Token, put, 400, "invalid_path"},
		"encoded dot-dot":      {"PUT", secret + "a/%2E%2E/b", me.Token, put, 400, "invalid_path"},
		"control character":    {"PUT", secret + "a%07b", me.Token, put, 400, "invalid_path"},
		"not NFC":              {"PUT", secret + "e%CC%81", me.Token, put, 400, "invalid_path"},
		"backslash":            {"PUT", secret + "a%5Cb", me.Token, put, 400, "invalid_path"},
		"dot-dot in a segment": {"PUT", secret + "a/b..c", me.Token, put, 400, "invalid_path"},
		"bidi override":        {"PUT", secret + "a%E2%80%AEb", me.Token, put, 400, "invalid_path"},
		"zero width space":     {"PUT", secret + "a%E2%80%8Bb", me.Token, put, 400, "invalid_path"},
		"path over 1024 bytes": {"PUT", secret + strings.Repeat("p", 1025), me.Token, put, 400, "invalid_path"},
		"bad credentials":      {"POST", "/v1/auth/token", "", map[string]string{"email": me.Email, "password": "wrong password"}, 401, "invalid_credentials"},
		"unknown user":         {"POST", "/v1/auth/token", "", map[string]string{"email": "ghost@example.com", "password": "whatever1"}, 401, "invalid_credentials"},
		"missing password":     {"POST", "/v1/auth/token", "", map[string]string{"email": me.Email}, 400, "invalid_request"},
		"short password":       {"POST", "/v1/auth/signup", "", map[string]string{"email": "new@example.com", "password": "short"}, 400, "invalid_request"},
		"taken email":          {"POST", "/v1/auth/signup", "", map[string]string{"email": "PROBLEMS@example.com", "password": "long enough"}, 409, "conflict"},
		"bad limit":            {"GET", "/v1/vaults?limit=0", me.Token, nil, 400, "invalid_request"},
		// Issue 13 item 5: nothing two parsers could read differently.
		"duplicate key":            {"POST", "/v1/agents", me.Token, `{"name":"a","intents_api_enabled":false,"intents_api_enabled":true}`, 400, "invalid_request"},
		"duplicate key after fold": {"POST", "/v1/agents", me.Token, `{"name":"a","intents_api_enabled":false,"Intents_API_Enabled":true}`, 400, "invalid_request"},
		"invalid UTF-8 value":      {"PUT", secret + "utf", me.Token, "{\"type\":\"password\",\"value\":\"\xff\xfe\"}", 400, "invalid_request"},
		"lone surrogate value":     {"PUT", secret + "sur", me.Token, `{"type":"password","value":"\ud800"}`, 400, "invalid_request"},
		"bad nonce":                {"GET", "/v1/attestation?nonce=zz", "", nil, 400, "invalid_request"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r := s.Do(tc.method, tc.path, tc.token, tc.body)
			require.Equal(t, tc.wantStatus, r.Status, string(r.Body))
			require.Equal(t, "application/problem+json", r.Header.Get("Content-Type"))
			m := r.JSON(t)
			require.Equal(t, tc.wantType, m["type"])
			require.EqualValues(t, tc.wantStatus, m["status"])
			require.NotEmpty(t, m["title"])
			require.NotEmpty(t, m["detail"])
		})
	}

	t.Run("vault names that look the same are one name", func(t *testing.T) {
		r := s.Do("POST", "/v1/vaults", me.Token, map[string]string{"name": "caf\u00e9 keys"})
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
		for name, want := range map[string]int{
			"cafe\u0301 keys":      http.StatusConflict,   // the NFD twin
			"CAF\u00c9 KEYS":       http.StatusConflict,   // another case
			"caf\u00e9  keys ":     http.StatusConflict,   // other spacing
			"caf\u00e9\u200b keys": http.StatusBadRequest, // zero-width space
			"c\u0430f\u00e9 keys":  http.StatusBadRequest, // a Cyrillic а
			"caf\u00e9 keys\u202e": http.StatusBadRequest, // bidi override
		} {
			r := s.Do("POST", "/v1/vaults", me.Token, map[string]string{"name": name})
			require.Equal(t, want, r.Status, "%q: %s", name, r.Body)
		}
	})

	t.Run("a path with spaces and unicode is fine", func(t *testing.T) {
		r := s.Do("PUT", secret+"team%20a/caf%C3%A9", me.Token, put)
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
		require.Equal(t, "team a/café", r.JSON(t)["path"])
	})
}
