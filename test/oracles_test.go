package test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

// TestAttackVaultExistenceOracle: a vault of another organization and a
// vault that exists nowhere answer alike, for reads and for writes (issue
// 13, item 6).
func TestAttackVaultExistenceOracle(t *testing.T) {
	s := stack.Start(t)
	victim := s.SignUp("oracle-victim@example.com")
	theirs := s.CreateVault(victim.Token, "theirs")
	s.Do("PUT", "/v1/vaults/"+theirs+"/secrets/db", victim.Token, map[string]any{"type": "password", "value": "x"})
	me := s.SignUp("oracle-attacker@example.com")
	nowhere := uuid.NewString()
	put := map[string]any{"type": "password", "value": "probe"}

	for _, req := range []struct{ method, suffix string }{
		{"PUT", "/secrets/db"}, {"PUT", "/secrets/new"}, {"GET", "/secrets/db"}, {"GET", ""}, {"DELETE", "/secrets/db"},
	} {
		var body any
		if req.method == "PUT" {
			body = put
		}
		a := s.Do(req.method, "/v1/vaults/"+theirs+req.suffix, me.Token, body)
		b := s.Do(req.method, "/v1/vaults/"+nowhere+req.suffix, me.Token, body)
		require.Equal(t, http.StatusNotFound, a.Status, "%s %s on another org's vault: %s", req.method, req.suffix, a.Body)
		require.Equal(t, http.StatusNotFound, b.Status, "%s %s on no vault: %s", req.method, req.suffix, b.Body)
		require.Equal(t, a.JSON(t)["type"], b.JSON(t)["type"])
		require.Equal(t, a.JSON(t)["detail"], b.JSON(t)["detail"])
	}
	// The victim's secret is untouched.
	r := s.Do("GET", "/v1/vaults/"+theirs+"/secrets/db", victim.Token, nil)
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	require.Equal(t, "x", r.JSON(t)["value"])
}
