package test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

// joinAsMember moves a signed-up user into org as a plain member (the
// invitation flow is not complete yet) and returns a fresh token.
func joinAsMember(t *testing.T, s *stack.Stack, a stack.Account, orgID string) string {
	t.Helper()
	execSQL(t, s, "DELETE FROM org_members WHERE user_id = '"+a.UserID+"'")
	execSQL(t, s, "INSERT INTO org_members (org_id, user_id, role) VALUES ('"+orgID+"', '"+a.UserID+"', 'member')")
	sealMembership(t, s, orgID, a.UserID, "member")
	return signIn(t, s, a.Email, a.Password)["access_token"].(string)
}

func createPolicy(t *testing.T, s *stack.Stack, token, vault string, body map[string]any) string {
	t.Helper()
	r := s.Do("POST", "/v1/vaults/"+vault+"/policies", token, body)
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	return r.JSON(t)["id"].(string)
}

func TestPolicies(t *testing.T) {
	s := stack.Start(t)
	owner := s.SignUp("pol-owner@example.com")
	vault := s.CreateVault(owner.Token, "prod")
	for _, p := range []string{"prod/a", "prod/a/b", "dev/x", "ip/s", "ip10/s"} {
		r := s.Do("PUT", "/v1/vaults/"+vault+"/secrets/"+p, owner.Token, map[string]string{"type": "password", "value": "v-" + p})
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	}
	mem := s.SignUp("pol-member@example.com")
	member := joinAsMember(t, s, mem, owner.OrgID)
	read := func(token, path string) stack.Response {
		return s.Do("GET", "/v1/vaults/"+vault+"/secrets/"+path, token, nil)
	}
	user := func(pattern string, extra map[string]any) map[string]any {
		b := map[string]any{"secret_path_pattern": pattern, "principal_type": "user", "principal_id": mem.UserID,
			"permissions": []string{"read"}}
		for k, v := range extra {
			b[k] = v
		}
		return b
	}

	t.Run("no policy denies members", func(t *testing.T) {
		requireProblem(t, read(member, "prod/a"), 403, "policy_denied")
		requireProblem(t, s.Do("GET", "/v1/vaults/"+vault, member, nil), 404, "not_found")
		require.Empty(t, s.Do("GET", "/v1/vaults", member, nil).JSON(t)["items"])
		requireProblem(t, s.Do("POST", "/v1/vaults/"+vault+"/policies", member, user("prod/*", nil)), 403, "forbidden")
		requireProblem(t, s.Do("GET", "/v1/vaults/"+vault+"/policies", member, nil), 403, "forbidden")
		require.Equal(t, http.StatusOK, read(owner.Token, "prod/a").Status, "owners bypass policies")
	})

	allow := createPolicy(t, s, owner.Token, vault, user("prod/*", nil))
	t.Run("allow prod/* read", func(t *testing.T) {
		r := read(member, "prod/a")
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.Equal(t, "v-prod/a", r.JSON(t)["value"])
		requireProblem(t, read(member, "prod/a/b"), 403, "policy_denied")
		requireProblem(t, s.Do("PUT", "/v1/vaults/"+vault+"/secrets/prod/a", member,
			map[string]string{"type": "password", "value": "x"}), 403, "policy_denied")
		requireProblem(t, s.Do("DELETE", "/v1/vaults/"+vault+"/secrets/prod/a", member, nil), 403, "policy_denied")
		list := s.Do("GET", "/v1/vaults/"+vault+"/secrets", member, nil)
		require.Equal(t, http.StatusOK, list.Status)
		items := list.JSON(t)["items"].([]any)
		require.Len(t, items, 1, "members list only what they may read")
		require.Equal(t, "prod/a", items[0].(map[string]any)["path"])
		require.Len(t, s.Do("GET", "/v1/vaults", member, nil).JSON(t)["items"], 1)
		require.Equal(t, http.StatusOK, s.Do("GET", "/v1/vaults/"+vault, member, nil).Status)
	})

	t.Run("deny at higher priority wins", func(t *testing.T) {
		deny := createPolicy(t, s, owner.Token, vault, user("prod/a", map[string]any{"effect": "deny", "priority": 10}))
		requireProblem(t, read(member, "prod/a"), 403, "policy_denied")
		require.Equal(t, http.StatusNoContent, s.Do("DELETE", "/v1/vaults/"+vault+"/policies/"+deny, owner.Token, nil).Status)
		require.Equal(t, http.StatusOK, read(member, "prod/a").Status)
	})

	t.Run("equal priority deny wins", func(t *testing.T) {
		deny := createPolicy(t, s, owner.Token, vault, user("prod/**", map[string]any{"effect": "deny"}))
		requireProblem(t, read(member, "prod/a"), 403, "policy_denied")
		// PUT replaces it with a lower-priority deny: the allow wins again.
		r := s.Do("PUT", "/v1/vaults/"+vault+"/policies/"+deny, owner.Token, user("prod/**", map[string]any{"effect": "deny", "priority": -1}))
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.EqualValues(t, -1, r.JSON(t)["priority"])
		require.Equal(t, http.StatusOK, read(member, "prod/a").Status)
	})

	t.Run("expired policy is ignored", func(t *testing.T) {
		id := createPolicy(t, s, owner.Token, vault, user("dev/*", nil))
		require.Equal(t, http.StatusOK, read(member, "dev/x").Status)
		execSQL(t, s, "UPDATE policies SET expires_at = now() - interval '1 second' WHERE id = '"+id+"'")
		requireProblem(t, read(member, "dev/x"), 403, "policy_denied")
	})

	t.Run("ip conditions", func(t *testing.T) {
		createPolicy(t, s, owner.Token, vault, user("ip/*", map[string]any{"conditions": map[string]any{"ip_cidrs": []string{"127.0.0.0/8"}}}))
		createPolicy(t, s, owner.Token, vault, user("ip10/*", map[string]any{"conditions": map[string]any{"ip_cidrs": []string{"10.0.0.0/8"}}}))
		require.Equal(t, http.StatusOK, read(member, "ip/s").Status)
		requireProblem(t, read(member, "ip10/s"), 403, "policy_denied")
	})

	t.Run("agents", func(t *testing.T) {
		id, key := registerAgent(t, s, owner.Token, map[string]any{"name": "reader"})
		jwt := agentJWT(t, s, id, key)
		requireProblem(t, read(jwt, "prod/a"), 403, "policy_denied")
		pol := createPolicy(t, s, owner.Token, vault, map[string]any{"secret_path_pattern": "prod/*", "principal_type": "agent",
			"principal_id": id, "permissions": []string{"read"}})
		// The policy change revoked the agent's JWT; a fresh one carries the scope.
		requireProblem(t, s.Do("GET", "/v1/agents/me", jwt, nil), 401, "invalid_token")
		jwt = agentJWT(t, s, id, key)
		require.Equal(t, []any{"prod/*"}, claims(t, jwt)["scopes"])
		r := read(jwt, "prod/a")
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		requireProblem(t, read(jwt, "prod/a/b"), 403, "policy_denied")
		require.Len(t, s.Do("GET", "/v1/vaults", jwt, nil).JSON(t)["items"], 1)

		// Deleting the agent deletes its policies.
		require.Equal(t, http.StatusNoContent, s.Do("DELETE", "/v1/agents/"+id, owner.Token, nil).Status)
		require.Equal(t, http.StatusOK, read(member, "prod/a").Status, "the changed policy set is sealed again")
		requireProblem(t, s.Do("DELETE", "/v1/vaults/"+vault+"/policies/"+pol, owner.Token, nil), 404, "not_found")
		requireProblem(t, s.Do("POST", "/v1/vaults/"+vault+"/policies", owner.Token, map[string]any{"secret_path_pattern": "x",
			"principal_type": "agent", "principal_id": id, "permissions": []string{"read"}}), 400, "invalid_request")
	})

	t.Run("validation and isolation", func(t *testing.T) {
		bad := map[string]map[string]any{
			"bad pattern":       user("a**", nil),
			"no permissions":    user("a", map[string]any{"permissions": []string{}}),
			"unknown principal": user("a", map[string]any{"principal_id": owner.OrgID}),
			"bad effect":        user("a", map[string]any{"effect": "maybe"}),
			"bad cidr":          user("a", map[string]any{"conditions": map[string]any{"ip_cidrs": []string{"nope"}}}),
			"bad tx condition":  user("a", map[string]any{"tx_conditions": map[string]any{"value_above": true}}),
			"expired":           user("a", map[string]any{"expires_at": "2020-01-01T00:00:00Z"}),
		}
		for name, body := range bad {
			requireProblem(t, s.Do("POST", "/v1/vaults/"+vault+"/policies", owner.Token, body), 400, "invalid_request")
			_ = name
		}
		full := createPolicy(t, s, owner.Token, vault, user("stored/**", map[string]any{"permissions": []string{"read", "write"},
			"tx_conditions": map[string]any{"chain_in": []string{"base"}}, "attribute_conditions": map[string]any{"k": 1},
			"consensus_trigger": map[string]any{"always": true}, "conditions": map[string]any{"environment_in": []string{"production"},
				"time_window": map[string]any{"start": "22:00", "end": "02:00", "days": []int{5}}}}))
		list := s.Do("GET", "/v1/vaults/"+vault+"/policies", owner.Token, nil)
		require.Equal(t, http.StatusOK, list.Status)
		require.Contains(t, string(list.Body), full)
		require.Contains(t, string(list.Body), `"chain_in":["base"]`)

		other := s.SignUp("pol-other@example.com")
		requireProblem(t, s.Do("GET", "/v1/vaults/"+vault+"/policies", other.Token, nil), 404, "not_found")
		requireProblem(t, s.Do("POST", "/v1/vaults/"+vault+"/policies", other.Token,
			map[string]any{"secret_path_pattern": "a", "principal_type": "user", "principal_id": other.UserID,
				"permissions": []string{"read"}}), 404, "not_found")
		requireProblem(t, s.Do("DELETE", "/v1/vaults/"+vault+"/policies/"+allow, other.Token, nil), 404, "not_found")
	})
}
