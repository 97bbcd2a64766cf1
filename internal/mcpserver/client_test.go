package mcpserver

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/api"
)

func TestNewConfig(t *testing.T) {
	cases := map[string]struct {
		cfg     Config
		wantErr error
	}{
		"ok agent":            {cfg: Config{BaseURL: "https://127.0.0.1:8443", AgentID: "a", AgentKey: "k"}},
		"ok token":            {cfg: Config{BaseURL: "https://vault.example/", Token: "t"}},
		"fail no credentials": {cfg: Config{BaseURL: "https://127.0.0.1:8443", AgentID: "a"}, wantErr: ErrNoCredentials},
		// A plain-HTTP URL would send the agent key in clear.
		"fail http url":  {cfg: Config{BaseURL: "http://127.0.0.1:8443", Token: "t"}, wantErr: ErrBadConfig},
		"fail with path": {cfg: Config{BaseURL: "https://h/v1", Token: "t"}, wantErr: ErrBadConfig},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := New(tc.cfg)
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
}

func TestTokenLifecycle(t *testing.T) {
	f := newFakeAPI(t)
	f.seed("a", "generic", "v")
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	cfg := f.config(true)
	cfg.Now = func() time.Time { return now }
	tl, err := newTools(cfg)
	require.NoError(t, err)
	ctx := context.Background()
	get := func() {
		t.Helper()
		_, err := tl.readSecret(ctx, fakeVault, "a")
		require.NoError(t, err)
	}

	get()
	get()
	require.Equal(t, 1, f.exchanges, "the token is reused while valid")

	now = now.Add(7200*time.Second - 30*time.Second) // inside the refresh window (1 min before expiry)
	get()
	require.Equal(t, 2, f.exchanges, "re-exchanged before expiry")

	f.revokeAll()
	get()
	require.Equal(t, 3, f.exchanges, "a 401 re-exchanges once and retries")
}

func TestExchangeFailure(t *testing.T) {
	f := newFakeAPI(t)
	cfg := f.config(true)
	cfg.AgentKey = "ocv_wrong-key-value"
	tl, err := newTools(cfg)
	require.NoError(t, err)
	_, err = tl.readSecret(context.Background(), fakeVault, "a")
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, http.StatusUnauthorized, apiErr.Status)
	require.False(t, strings.Contains(err.Error(), "wrong-key"), "the error shows the agent key")
}

func TestStaticTokenNotRetried(t *testing.T) {
	f := newFakeAPI(t)
	cfg := f.config(true)
	cfg.AgentID, cfg.AgentKey, cfg.Token = "", "", "not-a-valid-token"
	tl, err := newTools(cfg)
	require.NoError(t, err)
	_, err = tl.readSecret(context.Background(), fakeVault, "a")
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, http.StatusUnauthorized, apiErr.Status)
	require.Zero(t, f.exchanges)
}

func TestEnvName(t *testing.T) {
	cases := map[string]string{
		"prod/db/password":  "PASSWORD",
		"api-key":           "API_KEY",
		"svc/stripe.secret": "STRIPE_SECRET",
		"x/1token":          "_1TOKEN",
		"x/ünï":             "_N_",
	}
	for in, want := range cases {
		t.Run(in, func(t *testing.T) { require.Equal(t, want, api.EnvName(in)) })
	}
}

func TestHandle(t *testing.T) {
	require.Equal(t, "ocv://v1/prod/db%20main/pw#v3", Handle("v1", "prod/db main/pw", 3))
}
