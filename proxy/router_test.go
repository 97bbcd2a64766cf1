package proxy

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/proxy/handlers"
)

func TestRouterMatch(t *testing.T) {
	nop := func(http.ResponseWriter, *http.Request) error { return nil }
	rt := newRouter([]Route{
		{Method: "GET", Pattern: "/v1/vaults", Handler: nop},
		{Method: "GET", Pattern: "/v1/vaults/{id}", Handler: nop},
		{Method: "PUT", Pattern: "/v1/vaults/{vault_id}/secrets/{path...}", Handler: nop},
		{Method: "GET", Pattern: "/v1/vaults/{vault_id}/secrets/{path...}", Handler: nop},
	})
	tests := map[string]struct {
		method, target string
		wantPattern    string
		wantAllowed    []string
		wantValues     map[string]string
	}{
		"literal":                   {method: "GET", target: "/v1/vaults", wantPattern: "/v1/vaults"},
		"param":                     {method: "GET", target: "/v1/vaults/abc", wantPattern: "/v1/vaults/{id}", wantValues: map[string]string{"id": "abc"}},
		"rest stays raw":            {method: "GET", target: "/v1/vaults/v/secrets/a%2Fb/c", wantPattern: "/v1/vaults/{vault_id}/secrets/{path...}", wantValues: map[string]string{"vault_id": "v", "path": "a%2Fb/c"}},
		"rest keeps trailing slash": {method: "GET", target: "/v1/vaults/v/secrets/a/", wantPattern: "/v1/vaults/{vault_id}/secrets/{path...}", wantValues: map[string]string{"path": "a/"}},
		"wrong method":              {method: "DELETE", target: "/v1/vaults/v/secrets/a", wantAllowed: []string{"PUT", "GET"}},
		"unknown":                   {method: "GET", target: "/v1/nope"},
		"trailing slash":            {method: "GET", target: "/v1/vaults/"},
		"empty rest":                {method: "GET", target: "/v1/vaults/v/secrets"},
		"head is get":               {method: "HEAD", target: "/v1/vaults", wantPattern: "/v1/vaults"},
		"empty param":               {method: "GET", target: "/v1/vaults//secrets/a"},
		"literal after param":       {method: "GET", target: "/v1/vaults/v/secret/a"},
		"too long":                  {method: "GET", target: "/v1/vaults/v/w"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, tc.target, nil)
			route, allowed := rt.match(r)
			if tc.wantPattern == "" {
				require.Nil(t, route)
				require.Equal(t, tc.wantAllowed, allowed)
				return
			}
			require.NotNil(t, route)
			require.Equal(t, tc.wantPattern, route.Pattern)
			for k, v := range tc.wantValues {
				require.Equal(t, v, r.PathValue(k))
			}
		})
	}
}

// TestRouterMatchAllocs: routes that do not fit the request's path cost
// no allocation, so matching the last route of the table allocates no more
// than matching the first.
func TestRouterMatchAllocs(t *testing.T) {
	rt := newRouter(Routes(handlers.New(handlers.Deps{})))
	r := httptest.NewRequest(http.MethodGet, "/v1/vaults/0b7f6a2e-1c1b-4bb1-9c55-0d3b2f7c9e11/secrets/app/db", nil)
	route, _ := rt.match(r)
	require.NotNil(t, route)
	require.Equal(t, "/v1/vaults/{vault_id}/secrets/{path...}", route.Pattern)
	allocs := testing.AllocsPerRun(100, func() { rt.match(r) })
	t.Logf("%.0f allocations per match", allocs)
	require.LessOrEqual(t, allocs, 10.0, "allocations per match (14 before routes that do not fit were skipped without allocating)")
}

// TestRouteMetered: the flag the router computes once per route agrees with
// isMeteredRoute for every route of the table, and a route not built by the
// router is still judged.
func TestRouteMetered(t *testing.T) {
	rt := newRouter(Routes(handlers.New(handlers.Deps{})))
	for _, r := range rt.routes {
		require.Equal(t, isMeteredRoute(r), routeMetered(r), "%s %s", r.Method, r.Pattern)
	}
	require.False(t, routeMetered(nil))
	loose := &Route{Method: http.MethodGet, Pattern: "/v1/vaults", Access: Any}
	require.Equal(t, isMeteredRoute(loose), routeMetered(loose))
	require.True(t, routeMetered(loose))
}
