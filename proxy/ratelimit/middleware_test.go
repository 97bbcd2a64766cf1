package ratelimit

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func serve(h http.Handler, ip, token string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, "/v1/vaults", nil)
	r.RemoteAddr = ip + ":1234"
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestMiddleware(t *testing.T) {
	ipOf := func(r *http.Request) string { return strings.Split(r.RemoteAddr, ":")[0] }
	credOf := func(r *http.Request) string { return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") }
	type call struct {
		ip, token  string
		advance    time.Duration
		wantStatus int
		wantRetry  string
	}
	tests := map[string]struct {
		cfg   Config
		calls []call
	}{
		"per IP": {
			cfg: Config{PerIP: Limit{Rate: 0.5, Burst: 2}},
			calls: []call{
				{ip: "10.0.0.1", wantStatus: 200}, {ip: "10.0.0.1", wantStatus: 200},
				{ip: "10.0.0.1", wantStatus: 429, wantRetry: "2"},
				{ip: "10.0.0.2", wantStatus: 200},
				{ip: "10.0.0.1", advance: 1500 * time.Millisecond, wantStatus: 429, wantRetry: "1"}, // 0.5 s rounds up
				{ip: "10.0.0.1", advance: 500 * time.Millisecond, wantStatus: 200},
			},
		},
		"per credential across IPs": {
			cfg: Config{PerIP: Limit{Rate: 100, Burst: 100}, PerCredential: Limit{Rate: 1, Burst: 1}},
			calls: []call{
				{ip: "10.0.0.1", token: "tok-a", wantStatus: 200},
				{ip: "10.0.0.2", token: "tok-a", wantStatus: 429, wantRetry: "1"},
				{ip: "10.0.0.2", token: "tok-b", wantStatus: 200},
				{ip: "10.0.0.3", wantStatus: 200}, // no credential: only the IP limit
				{ip: "10.0.0.3", wantStatus: 200},
			},
		},
		"off": {
			cfg:   Config{},
			calls: []call{{ip: "10.0.0.1", token: "t", wantStatus: 200}, {ip: "10.0.0.1", token: "t", wantStatus: 200}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			clk := newClock()
			tc.cfg.Now = clk.Now
			l := New(tc.cfg)
			h := Middleware(l, ipOf, credOf)(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(http.StatusOK)
			}))
			for i, c := range tc.calls {
				clk.Advance(c.advance)
				w := serve(h, c.ip, c.token)
				require.Equal(t, c.wantStatus, w.Code, "call %d", i)
				require.Equal(t, c.wantRetry, w.Header().Get("Retry-After"), "call %d", i)
				if c.wantStatus == http.StatusTooManyRequests {
					require.Equal(t, "application/problem+json", w.Header().Get("Content-Type"))
					var p struct {
						Type   string `json:"type"`
						Status int    `json:"status"`
					}
					require.NoError(t, json.Unmarshal(w.Body.Bytes(), &p))
					require.Equal(t, TypeRateLimited, p.Type)
					require.Equal(t, http.StatusTooManyRequests, p.Status)
				}
			}
		})
	}
}

func TestCredentialKeyHidesToken(t *testing.T) {
	const token = "ocvk_secretvalue"
	k := CredentialKey(token)
	require.Len(t, k, 2*credentialKeyBytes)
	require.NotContains(t, k, "secretvalue")
	require.Equal(t, k, CredentialKey(token))
	require.NotEqual(t, k, CredentialKey(token+"x"))

	l := New(Config{PerCredential: Limit{Rate: 1, Burst: 1}})
	h := Middleware(l, nil, func(*http.Request) string { return token })(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	serve(h, "10.0.0.1", "")
	for i := range l.cred.shards {
		for key := range l.cred.shards[i].m {
			require.Equal(t, k, key, "buckets are keyed by the hash only")
		}
	}
}

func TestMiddlewareNilLimiterPanics(t *testing.T) {
	require.Panics(t, func() { Middleware(nil, nil, nil) })
}
