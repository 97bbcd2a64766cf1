package proxy

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/testbuild"
)

func TestCrashHooksAreTestOnly(t *testing.T) {
	env := func(kv map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := kv[k]; return v, ok }
	}
	tests := map[string]struct {
		env       map[string]string
		testBuild bool
		wantErr   bool
	}{
		"unset in production":              {},
		"empty in production":              {env: map[string]string{envCrashAfterCommit: ""}},
		"after commit in a test build":     {env: map[string]string{envCrashAfterCommit: "PUT /v1/x"}, testBuild: true},
		"fail after commit in production":  {env: map[string]string{envCrashAfterCommit: "PUT /v1/x"}, wantErr: true},
		"fail before commit in production": {env: map[string]string{envCrashBeforeCommit: "PUT /v1/x"}, wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := DefaultConfig()
			require.NoError(t, c.applyEnv(env(tc.env)))
			errs := c.validateTestOnly(tc.testBuild)
			require.Equal(t, tc.wantErr, len(errs) > 0, "%v", errs)
			for k := range tc.env {
				if tc.wantErr {
					require.Contains(t, errs[0].Error(), k, "the error names the variable")
				}
			}
		})
	}
}

// This unit test binary is built without -tags ocvtest: the proxy refuses
// to start with a crash hook set, and a hook never matches.
func TestCrashHooksRefusedInThisBuild(t *testing.T) {
	if testbuild.Enabled {
		t.Skip("built with -tags ocvtest")
	}
	c := DefaultConfig()
	c.TestCrash = crashHooks{AfterCommit: "PUT /v1/x"}
	require.NotEmpty(t, c.validateTestOnly(testbuild.Enabled))
	r := httptest.NewRequest("PUT", "/v1/x", nil)
	r = r.WithContext(context.WithValue(r.Context(), routeKey{}, &Route{Method: "PUT", Pattern: "/v1/x"}))
	require.False(t, crashMatches("PUT /v1/x", r))
}
