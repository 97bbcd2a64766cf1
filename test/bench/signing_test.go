package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestTxSignBody(t *testing.T) {
	b, err := txSignBody(42)
	require.NoError(t, err)
	require.JSONEq(t, `{"chain_id":"base","to":"0x00000000000000000000000000000000000000b2","value":"0x1",
		"nonce":42,"gas":21000,"max_fee_per_gas":"0x3b9aca00","max_priority_fee_per_gas":"0x1"}`, string(b))
}

func TestPersonalSignBody(t *testing.T) {
	b, err := personalSignBody(7)
	require.NoError(t, err)
	require.JSONEq(t, `{"intent_type":"personal_sign","message":"bench 7"}`, string(b))
}

func TestIsHexString(t *testing.T) {
	tests := map[string]struct {
		v    string
		min  int
		want bool
	}{
		"ok exact":        {v: "0x0aFf", min: 2, want: true},
		"ok longer":       {v: "0x0aff00", min: 2, want: true},
		"fail short":      {v: "0x0a", min: 2},
		"fail no prefix":  {v: "0aff", min: 2},
		"fail odd length": {v: "0x0af", min: 1},
		"fail not hex":    {v: "0x0g", min: 1},
		"fail empty":      {v: "", min: 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, isHexString(tc.v, tc.min))
		})
	}
}

func TestVerifySigning(t *testing.T) {
	sig := "0x" + strings.Repeat("ab", 65)
	tests := map[string]struct {
		verify func([]byte) bool
		body   string
		want   bool
	}{
		"ok personal_sign":         {verify: verifyPersonalSign, body: `{"signature":"` + sig + `"}`, want: true},
		"fail personal_sign short": {verify: verifyPersonalSign, body: `{"signature":"0xabcd"}`},
		// A longer blob is not a 65-byte signature.
		"fail personal_sign long": {verify: verifyPersonalSign, body: `{"signature":"` + sig + `00"}`},
		"fail personal_sign none": {verify: verifyPersonalSign, body: `{}`},
		"ok tx":                   {verify: verifyTxSign, body: `{"signed_tx":"0x02` + strings.Repeat("cd", 100) + `"}`, want: true},
		"fail tx missing":         {verify: verifyTxSign, body: `{"signature":"` + sig + `"}`},
		"fail tx not json":        {verify: verifyTxSign, body: `signed`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.verify([]byte(tc.body)))
		})
	}
}

// fakeIntents is a stand-in for the stack's agent and Intents routes: it
// checks which token each route gets and records the nonces and messages
// signed.
type fakeIntents struct {
	mu       sync.Mutex
	nonces   map[uint64]int
	messages map[string]int
	keys     int
}

const (
	fakeUserToken  = "user-token"
	fakeAgentToken = "agent-token"
	fakeAgentID    = "8a1c1f0e-0000-4000-8000-000000000001"
)

func (f *fakeIntents) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	auth := r.Header.Get("Authorization")
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	reply := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/agents" && auth == "Bearer "+fakeUserToken:
		if body["name"] != "bench-signer" || body["intents_api_enabled"] != true || body["message_signing_enabled"] != true {
			http.Error(w, "bad agent", http.StatusBadRequest)
			return
		}
		reply(http.StatusCreated, map[string]string{"agent_id": fakeAgentID, "api_key": "ak_secret"})
	case r.URL.Path == "/v1/agents/"+fakeAgentID+"/signing-keys" && auth == "Bearer "+fakeUserToken:
		if body["chain"] != "ethereum" {
			http.Error(w, "bad chain", http.StatusBadRequest)
			return
		}
		f.keys++
		reply(http.StatusCreated, map[string]string{"chain": "ethereum"})
	// The agent signs in with its key alone: a user token here would be a bug.
	case r.URL.Path == "/v1/auth/agent-token" && auth == "":
		if body["agent_id"] != fakeAgentID || body["api_key"] != "ak_secret" {
			http.Error(w, "bad key", http.StatusUnauthorized)
			return
		}
		reply(http.StatusOK, map[string]any{"access_token": fakeAgentToken, "expires_in": 7200})
	case r.URL.Path == "/v1/agents/"+fakeAgentID+"/sign" && auth == "Bearer "+fakeAgentToken:
		msg, _ := body["message"].(string)
		f.messages[msg]++
		reply(http.StatusOK, map[string]string{"signature": "0x" + strings.Repeat("11", 65)})
	case r.URL.Path == "/v1/agents/"+fakeAgentID+"/transactions/sign" && auth == "Bearer "+fakeAgentToken:
		n, _ := body["nonce"].(float64)
		f.nonces[uint64(n)]++
		reply(http.StatusOK, map[string]string{"signed_tx": "0x02" + strings.Repeat("22", 110)})
	default:
		http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusForbidden)
	}
}

func TestSigningScenariosAgainstFake(t *testing.T) {
	f := &fakeIntents{nonces: map[uint64]int{}, messages: map[string]int{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c := &client{http: srv.Client(), base: srv.URL}
	tok := fakeUserToken
	c.token.Store(&tok)

	sig, ttl, err := newAgentSigner(t.Context(), c)
	require.NoError(t, err)
	require.Equal(t, 2*time.Hour, ttl)
	require.Equal(t, 1, f.keys)

	for _, sc := range []scenario{sig.txSign(), sig.personalSign()} {
		res := run(t.Context(), srv.Client(), sc, 4, 0, 100*time.Millisecond)
		require.Empty(t, res.Errors, sc.name)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	// Every request, warm-up and counted alike, carries its own nonce or message.
	for n, times := range f.nonces {
		require.Equal(t, 1, times, "nonce %d", n)
	}
	for m, times := range f.messages {
		require.Equal(t, 1, times, "message %q", m)
		require.True(t, strings.HasPrefix(m, "bench "), m)
	}
}

func TestNewAgentSignerFails(t *testing.T) {
	srv := httptest.NewServer(&fakeIntents{nonces: map[uint64]int{}, messages: map[string]int{}})
	t.Cleanup(srv.Close)
	// Without the user's token the fake refuses to create the agent.
	c := &client{http: srv.Client(), base: srv.URL}
	_, _, err := newAgentSigner(t.Context(), c)
	require.ErrorIs(t, err, ErrUnexpectedStatus)
}
