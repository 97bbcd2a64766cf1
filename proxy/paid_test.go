package proxy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/proxy/handlers"
	"github.com/opencustody/ocv/proxy/idempotency"
	"github.com/opencustody/ocv/proxy/metering"
	"github.com/opencustody/ocv/proxy/metering/x402"
	"github.com/opencustody/ocv/proxy/ratelimit"
)

func findRoute(t *testing.T, method, pattern string) *Route {
	t.Helper()
	for _, r := range Routes(handlers.New(handlers.Deps{})) {
		if r.Method == method && r.Pattern == pattern {
			return &r
		}
	}
	t.Fatalf("no route %s %s", method, pattern)
	return nil
}

func TestRouteClasses(t *testing.T) {
	tests := map[string]struct {
		method, pattern                string
		metered, anonymous, idempotent bool
	}{
		"health is public":         {http.MethodGet, "/v1/health", false, false, false},
		"signup is public":         {http.MethodPost, "/v1/auth/signup", false, false, false},
		"token issuance":           {http.MethodPost, "/v1/auth/token", false, false, false},
		"jwks is discovery":        {http.MethodGet, "/.well-known/jwks.json", false, false, false},
		"x402 discovery":           {http.MethodGet, "/.well-known/x402", false, false, false},
		"vault list is metered":    {http.MethodGet, "/v1/vaults", true, false, false},
		"secret read is metered":   {http.MethodGet, "/v1/vaults/{vault_id}/secrets/{path...}", true, false, false},
		"vault create":             {http.MethodPost, "/v1/vaults", true, false, true},
		"ip rule create":           {http.MethodPost, "/v1/security/ip-rules", true, false, true},
		"agent create keeps key":   {http.MethodPost, "/v1/agents", true, false, false},
		"rotate key":               {http.MethodPost, "/v1/agents/{id}/rotate-key", true, false, false},
		"api key create":           {http.MethodPost, "/v1/auth/api-keys", true, false, false},
		"webhook create":           {http.MethodPost, "/v1/webhooks", true, false, false},
		"share create":             {http.MethodPost, "/v1/secrets/{secret_id}/share", true, false, false},
		"share access anonymous":   {http.MethodGet, "/v1/share/{id}", false, true, false},
		"billing usage is metered": {http.MethodGet, "/v1/billing/usage", true, false, false},
		"agent sign not counted":   {http.MethodPost, "/v1/agents/{id}/sign", false, false, true},
		"transaction not counted":  {http.MethodPost, "/v1/agents/{id}/transactions", false, false, true},
		"sign only not counted":    {http.MethodPost, "/v1/agents/{id}/transactions/sign", false, false, true},
		"simulation is metered":    {http.MethodPost, "/v1/agents/{id}/transactions/simulate", true, false, true},
		"signing key create":       {http.MethodPost, "/v1/agents/{id}/signing-keys", true, false, true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			rt := findRoute(t, tc.method, tc.pattern)
			require.Equal(t, tc.metered, isMeteredRoute(rt))
			require.Equal(t, tc.anonymous, isAnonymousPaidRoute(rt))
			require.Equal(t, tc.idempotent, isIdempotentRoute(rt))
		})
	}
}

func TestExemptionsAndSigningPOSTs(t *testing.T) {
	tests := map[string]struct {
		route   Route
		metered bool
	}{
		"runtimes list":    {Route{Method: http.MethodGet, Pattern: "/v1/runtimes", Access: Any}, false},
		"runtime get":      {Route{Method: http.MethodGet, Pattern: "/v1/runtimes/{id}", Access: Any}, false},
		"automations list": {Route{Method: http.MethodGet, Pattern: "/v1/automations", Access: Any}, false},
		"automation get":   {Route{Method: http.MethodGet, Pattern: "/v1/automations/{id}", Access: Any}, true},
		"signing POST":     {Route{Method: http.MethodPost, Pattern: "/v1/wallets/{id}/sign", Access: Any}, false},
		"unversioned":      {Route{Method: http.MethodGet, Pattern: "/openapi.json", Access: Any}, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.metered, isMeteredRoute(&tc.route))
		})
	}
}

func TestShareAccessIsPaidOnlyWithPayment(t *testing.T) {
	rt := findRoute(t, http.MethodGet, "/v1/share/{id}")
	r := httptest.NewRequest(http.MethodGet, "/v1/share/x", nil)
	r = r.WithContext(context.WithValue(r.Context(), routeKey{}, rt))
	require.False(t, isPaidRequest(r))
	r.Header.Set(x402.HeaderPayment, "e30=")
	require.True(t, isPaidRequest(r))
}

func TestProblemTypesMatchTheMiddlewares(t *testing.T) {
	require.Equal(t, problem.TypeRateLimited, ratelimit.TypeRateLimited)
	require.Equal(t, problem.TypePaymentRequired, x402.TypePaymentRequired)
	require.Equal(t, problem.TypeResourceLimitExceeded, metering.TypeResourceLimitExceeded)
	require.Equal(t, problem.TypeIdempotencyInProgress, idempotency.TypeInProgress)
	require.Equal(t, problem.TypeIdempotencyMismatch, idempotency.TypeMismatch)
}
