package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/api"
)

func TestEscapePath(t *testing.T) {
	tests := map[string]struct {
		path, want string
		wantErr    error
	}{
		"plain":             {path: "db/password", want: "db/password"},
		"space and accent":  {path: "team a/café", want: "team%20a/caf%C3%A9"},
		"reserved chars":    {path: "a?b/c#d/e%f", want: "a%3Fb/c%23d/e%25f"},
		"plus and colon":    {path: "k+v/x:y", want: "k+v/x:y"},
		"fail empty":        {path: "", wantErr: ErrUsage},
		"fail double slash": {path: "a//b", wantErr: ErrUsage},
		"fail leading":      {path: "/a", wantErr: ErrUsage},
		// An HTTP client or mux could clean these away and hit another secret.
		"fail dot-dot": {path: "a/../b", wantErr: ErrUsage},
		"fail dot":     {path: "./a", wantErr: ErrUsage},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := escapePath(tc.path)
			require.ErrorIs(t, err, tc.wantErr)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestProblemRendering(t *testing.T) {
	tests := map[string]struct {
		status int
		body   string
		want   string
	}{
		"problem": {status: 404, body: `{"type":"not_found","title":"Not Found","status":404,"detail":"vault not found"}`,
			want: "Not Found: vault not found (not_found, HTTP 404)"},
		"not json": {status: 502, body: `<html>bad gateway</html>`,
			want: "Bad Gateway: the server answered without problem details (about:blank, HTTP 502)"},
		// A hostile server must not drive the user's terminal.
		"control characters": {status: 400, body: `{"type":"x","title":"Bad\u001b[2J","status":400,"detail":"a\nb"}`,
			want: "Bad?[2J: a?b (x, HTTP 400)"},
		"status from the answer wins": {status: 409, body: `{"type":"conflict","title":"Conflict","status":200,"detail":"d"}`,
			want: "Conflict: d (conflict, HTTP 409)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, problemFrom(tc.status, []byte(tc.body)).Error())
		})
	}
}

// fakeAPI is a TLS server answering the token, refresh and vault list endpoints.
type fakeAPI struct {
	srv       *httptest.Server
	refreshes atomic.Int32
	valid     atomic.Value // the access token currently accepted
}

func newFakeAPI(t *testing.T) *fakeAPI {
	f := &fakeAPI{}
	f.valid.Store("access-1")
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/auth/refresh", func(w http.ResponseWriter, r *http.Request) {
		n := f.refreshes.Add(1)
		tok := "access-r" + string(rune('0'+n))
		f.valid.Store(tok)
		_ = json.NewEncoder(w).Encode(api.TokenResponse{AccessToken: tok, ExpiresIn: 900, RefreshToken: "ocvr_next" + string(rune('0'+n))})
	})
	mux.HandleFunc("GET /v1/vaults", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+f.valid.Load().(string) {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"type":"invalid_token","title":"Unauthorized","status":401,"detail":"no"}`))
			return
		}
		switch r.URL.Query().Get("cursor") {
		case "":
			_, _ = w.Write([]byte(`{"items":[{"id":"1"},{"id":"2"}],"next_cursor":"c2"}`))
		case "c2":
			_, _ = w.Write([]byte(`{"items":[{"id":"3"}],"next_cursor":null}`))
		default:
			w.WriteHeader(http.StatusBadRequest)
		}
	})
	f.srv = httptest.NewTLSServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) client(t *testing.T, store credStore) *client {
	c, err := newClient(globals{url: f.srv.URL}, store)
	require.NoError(t, err)
	c.hc = f.srv.Client()
	c.hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

func TestClientListFollowsCursor(t *testing.T) {
	f := newFakeAPI(t)
	c := f.client(t, credStore{dir: t.TempDir()})
	c.token = "access-1"
	items, err := listAll(context.Background(), c, "/v1/vaults", nil)
	require.NoError(t, err)
	require.Len(t, items, 3)
}

func TestClientRefresh(t *testing.T) {
	tests := map[string]struct {
		entry     credEntry
		refreshes int32
		wantErr   error
	}{
		"valid token used":         {entry: credEntry{AccessToken: "access-1", RefreshToken: "ocvr_1", ExpiresAt: time.Now().Add(time.Hour)}},
		"expired token refreshed":  {entry: credEntry{AccessToken: "old", RefreshToken: "ocvr_1", ExpiresAt: time.Now().Add(-time.Minute)}, refreshes: 1},
		"revoked token refreshed":  {entry: credEntry{AccessToken: "revoked", RefreshToken: "ocvr_1", ExpiresAt: time.Now().Add(time.Hour)}, refreshes: 1},
		"fail expired, no refresh": {entry: credEntry{AccessToken: "old", ExpiresAt: time.Now().Add(-time.Minute)}, wantErr: ErrSessionExpired},
		"fail revoked, no refresh": {entry: credEntry{AccessToken: "revoked", ExpiresAt: time.Now().Add(time.Hour)}, wantErr: &ProblemError{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newFakeAPI(t)
			store := credStore{dir: t.TempDir()}
			require.NoError(t, store.put(f.srv.URL, tc.entry))
			c := f.client(t, store)
			_, err := c.call(context.Background(), http.MethodGet, "/v1/vaults", nil, nil)
			if p, ok := tc.wantErr.(*ProblemError); ok {
				require.ErrorAs(t, err, &p)
				require.Equal(t, http.StatusUnauthorized, p.Status)
			} else {
				require.ErrorIs(t, err, tc.wantErr)
			}
			require.Equal(t, tc.refreshes, f.refreshes.Load())
			if tc.refreshes > 0 {
				e, _, err := store.get(f.srv.URL)
				require.NoError(t, err)
				require.True(t, strings.HasPrefix(e.RefreshToken, "ocvr_next"), "the rotated refresh token is cached")
			}
		})
	}
}

func TestClientNotLoggedIn(t *testing.T) {
	f := newFakeAPI(t)
	c := f.client(t, credStore{dir: filepath.Join(t.TempDir(), "missing")})
	_, err := c.call(context.Background(), http.MethodGet, "/v1/vaults", nil, nil)
	require.ErrorIs(t, err, ErrNotLoggedIn)
	_, err = os.Stat(filepath.Join(t.TempDir(), "missing"))
	require.True(t, os.IsNotExist(err), "reading the cache creates nothing")
}

func TestNewClientURL(t *testing.T) {
	tests := map[string]struct {
		url     string
		wantErr error
	}{
		"https":          {url: "https://vault.example.com"},
		"trailing slash": {url: "https://vault.example.com/"},
		// A token must never travel in clear text.
		"fail http":      {url: "http://vault.example.com", wantErr: ErrUsage},
		"fail with path": {url: "https://vault.example.com/api", wantErr: ErrUsage},
		"fail garbage":   {url: "::", wantErr: ErrUsage},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := newClient(globals{url: tc.url}, credStore{dir: t.TempDir()})
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
}
