package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/obs"
	"github.com/opencustody/ocv/proxy/auth"
)

func TestValidateIdentity(t *testing.T) {
	tests := map[string]struct {
		change  func(*Config)
		wantErr string
	}{
		"ok defaults":            {change: func(*Config) {}},
		"ok bootstrap":           {change: func(c *Config) { c.BootstrapAdminEmail, c.BootstrapAdminPassword = "root@example.com", "long enough" }},
		"ok email alone":         {change: func(c *Config) { c.BootstrapAdminEmail = "root@example.com" }},
		"fail short refresh":     {change: func(c *Config) { c.RefreshTTL = time.Minute }, wantErr: "refresh_ttl"},
		"fail zero lockout":      {change: func(c *Config) { c.LockoutDuration = 0 }, wantErr: "lockout_duration"},
		"fail bad email":         {change: func(c *Config) { c.BootstrapAdminEmail = "Root <root@example.com>" }, wantErr: "bootstrap_admin_email"},
		"fail password no email": {change: func(c *Config) { c.BootstrapAdminPassword = "long enough" }, wantErr: "bootstrap_admin_password"},
		"fail short password": {change: func(c *Config) { c.BootstrapAdminEmail, c.BootstrapAdminPassword = "root@example.com", "short" },
			wantErr: "bootstrap_admin_password"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := DefaultConfig()
			tc.change(&c)
			err := errors.Join(c.validateIdentity()...)
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.wantErr)
			require.NotContains(t, err.Error(), "long enough", "an error never carries the password")
		})
	}
}

func TestIdentityEnvAndMasking(t *testing.T) {
	env := map[string]string{"OCV_REFRESH_TTL": "48h", "OCV_LOCKOUT_DURATION": "2m",
		"OCV_BOOTSTRAP_ADMIN_EMAIL": "root@example.com", "OCV_BOOTSTRAP_ADMIN_PASSWORD": "canary-password-9"}
	c := DefaultConfig()
	require.NoError(t, c.applyEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok }))
	require.Equal(t, 48*time.Hour, c.RefreshTTL)
	require.Equal(t, 2*time.Minute, c.LockoutDuration)
	require.Equal(t, "root@example.com", c.BootstrapAdminEmail)
	require.Equal(t, "canary-password-9", c.BootstrapAdminPassword)
	require.Equal(t, c.RefreshTTL, c.IdentityConfig().RefreshTTL)
	out := c.Masked()
	require.NotContains(t, out, "canary")
	require.Contains(t, out, "root@example.com")
}

// keyTable resolves API keys to fixed principals.
type keyTable map[string]auth.APIKey

func (k keyTable) ResolveAPIKey(_ context.Context, hash []byte) (auth.APIKey, error) {
	if key, ok := k[string(hash)]; ok {
		return key, nil
	}
	return auth.APIKey{}, auth.ErrInvalidToken
}

type nopAppender struct{}

func (nopAppender) Append(context.Context, *auditchain.Event) error { return nil }

func TestAccessLevels(t *testing.T) {
	keys := keyTable{}
	bearer := func(role, platformRole string) string {
		tok, hash, err := auth.NewOpaque(auth.APIKeyPrefix)
		require.NoError(t, err)
		keys[string(hash)] = auth.APIKey{ID: "k-" + role + platformRole, UserID: "u", OrgID: "o", Role: role, PlatformRole: platformRole}
		return tok
	}
	v := auth.NewVerifier(nil, nil, "https://ocv.example")
	v.APIKeys = auth.NewAPIKeyVerifier(keys, time.Minute)
	ok := func(w http.ResponseWriter, _ *http.Request) error { w.WriteHeader(http.StatusNoContent); return nil }
	s := &Server{cfg: DefaultConfig(), log: slog.New(slog.NewTextHandler(io.Discard, nil)), audits: nopAppender{}, verifier: v,
		metrics: obs.NewMetrics(), router: newRouter([]Route{
			{Method: "GET", Pattern: "/admin", Access: AdminOnly, Action: "a", Handler: ok},
			{Method: "GET", Pattern: "/user", Access: UserOnly, Action: "u", Handler: ok},
		})}
	s.chain = s.audit(s.limits(s.authenticate(http.HandlerFunc(s.dispatch))))

	owner, admin, super := bearer("owner", ""), bearer("member", "admin"), bearer("member", "super_admin")
	tests := map[string]struct {
		path, token string
		wantStatus  int
		wantType    string
	}{
		// An organization owner is not a platform administrator.
		"fail org owner on admin route": {path: "/admin", token: owner, wantStatus: 403, wantType: "forbidden"},
		"ok platform admin":             {path: "/admin", token: admin, wantStatus: 204},
		"ok super admin":                {path: "/admin", token: super, wantStatus: 204},
		"ok api key on user route":      {path: "/user", token: owner, wantStatus: 204},
		"fail unknown key":              {path: "/user", token: auth.APIKeyPrefix + strings.Repeat("A", 43), wantStatus: 401, wantType: "invalid_token"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			req := httptest.NewRequest("GET", tc.path, nil)
			req.Header.Set("Authorization", "Bearer "+tc.token)
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			require.Equal(t, tc.wantStatus, rec.Code, rec.Body.String())
			if tc.wantType != "" {
				var p map[string]any
				require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &p))
				require.Equal(t, tc.wantType, p["type"])
			}
		})
	}
}
