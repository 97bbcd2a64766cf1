package test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

func TestEnvVarsResolve(t *testing.T) {
	s := stack.Start(t)
	owner := s.SignUp("env-owner@example.com")
	shared := s.CreateVault(owner.Token, "shared")
	app := s.CreateVault(owner.Token, "app")
	put := func(vault, path, value string) {
		r := s.Do("PUT", "/v1/vaults/"+vault+"/secrets/"+path, owner.Token, map[string]string{"type": "generic", "value": value})
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	}
	put(shared, "env/A", "org-a")
	put(shared, "env/B", "org-b")
	put(app, "env/B", "vault-b")
	put(app, "env/C", "vault-c")
	put(app, "env/bad-name", "x")
	put(app, "env/branches/feat/C", "branch-c")
	put(app, "env/branches/feat/D", "branch-d")
	put(app, "other/E", "not-env")
	resolve := func(token, query string) map[string]any {
		r := s.Do("GET", "/v1/vaults/"+app+"/env-vars/resolve"+query, token, nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		return r.JSON(t)
	}

	t.Run("organization, then vault", func(t *testing.T) {
		m := resolve(owner.Token, "")
		require.Equal(t, map[string]any{"A": "org-a", "B": "vault-b", "C": "vault-c"}, m["variables"])
		require.Equal(t, map[string]any{"A": "org", "B": "vault", "C": "vault"}, m["sources"])
		require.Len(t, m["skipped"], 1)
		require.Equal(t, "env/bad-name", m["skipped"].([]any)[0].(map[string]any)["path"])
		require.Empty(t, m["denied"])
	})

	t.Run("branch overrides", func(t *testing.T) {
		m := resolve(owner.Token, "?branch=feat")
		require.Equal(t, map[string]any{"A": "org-a", "B": "vault-b", "C": "branch-c", "D": "branch-d"}, m["variables"])
		require.Equal(t, "branch", m["sources"].(map[string]any)["C"])
	})

	t.Run("members get only what their policies allow", func(t *testing.T) {
		mem := s.SignUp("env-member@example.com")
		member := joinAsMember(t, s, mem, owner.OrgID)
		requireProblem(t, s.Do("GET", "/v1/vaults/"+app+"/env-vars/resolve", member, nil), 404, "not_found")
		createPolicy(t, s, owner.Token, app, map[string]any{"secret_path_pattern": "env/*", "principal_type": "user",
			"principal_id": mem.UserID, "permissions": []string{"read"}})
		m := resolve(member, "?branch=feat")
		require.Equal(t, map[string]any{"B": "vault-b", "C": "vault-c"}, m["variables"])
		var denied []string
		for _, d := range m["denied"].([]any) {
			denied = append(denied, d.(map[string]any)["path"].(string))
		}
		require.ElementsMatch(t, []string{"env/A", "env/B", "env/branches/feat/C", "env/branches/feat/D"}, denied)
	})

	t.Run("another organization's vault is 404", func(t *testing.T) {
		other := s.SignUp("env-other@example.com")
		requireProblem(t, s.Do("GET", "/v1/vaults/"+app+"/env-vars/resolve", other.Token, nil), 404, "not_found")
		requireProblem(t, s.Do("GET", "/v1/vaults/"+app+"/env-vars/resolve?branch=../x", owner.Token, nil), 400, "invalid_request")
	})
}
