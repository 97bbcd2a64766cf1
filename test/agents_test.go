package test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

// registerAgent registers an agent and returns its id and key.
func registerAgent(t *testing.T, s *stack.Stack, token string, body map[string]any) (id, key string) {
	t.Helper()
	r := s.Do("POST", "/v1/agents", token, body)
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	m := r.JSON(t)
	return m["agent_id"].(string), m["api_key"].(string)
}

// agentToken exchanges an agent key and returns the token response.
func agentToken(t *testing.T, s *stack.Stack, id, key string) stack.Response {
	t.Helper()
	return s.Do("POST", "/v1/auth/agent-token", "", map[string]string{"agent_id": id, "api_key": key})
}

func agentJWT(t *testing.T, s *stack.Stack, id, key string) string {
	t.Helper()
	r := agentToken(t, s, id, key)
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	return r.JSON(t)["access_token"].(string)
}

func TestAgents(t *testing.T) {
	s := stack.Start(t)
	owner := s.SignUp("agent-owner@example.com")

	r := s.Do("POST", "/v1/agents", owner.Token, map[string]any{"name": " ci-bot ", "environment": "production",
		"tx_max_per_day": 5, "raw_signing_enabled": true, "signing_chains": []string{"base"}})
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	created := r.JSON(t)
	id, key := created["agent_id"].(string), created["api_key"].(string)
	require.Equal(t, id, created["id"])
	require.True(t, strings.HasPrefix(key, "ocv_"), "agent keys start with ocv_")
	require.Equal(t, "ci-bot", created["name"])
	require.EqualValues(t, 5, created["tx_max_per_day"], "guardrails are stored as given")
	require.Equal(t, true, created["raw_signing_enabled"])
	require.Equal(t, owner.UserID, created["created_by"])

	// The key is shown once: never in reads or listings.
	require.NotContains(t, string(s.Do("GET", "/v1/agents", owner.Token, nil).Body), key)
	one := s.Do("GET", "/v1/agents/"+id, owner.Token, nil)
	require.Equal(t, http.StatusOK, one.Status)
	require.NotContains(t, string(one.Body), key)
	require.EqualValues(t, 0, one.JSON(t)["tx_count_today"])

	requireProblem(t, s.Do("POST", "/v1/agents", owner.Token, map[string]any{"name": "x", "tx_max_per_day": "five"}), 400, "invalid_request")
	requireProblem(t, s.Do("POST", "/v1/agents", owner.Token, map[string]any{"name": "x", "nope": 1}), 400, "invalid_request")
	requireProblem(t, s.Do("POST", "/v1/agents", owner.Token, map[string]any{}), 400, "invalid_request")

	// The exchange: a 2 h agent JWT with empty scopes and no policies.
	tr := agentToken(t, s, id, key)
	require.Equal(t, http.StatusOK, tr.Status, string(tr.Body))
	require.EqualValues(t, 7200, tr.JSON(t)["expires_in"])
	jwt := tr.JSON(t)["access_token"].(string)
	c := claims(t, jwt)
	require.Equal(t, "agent", c["principal_type"])
	require.Equal(t, id, c["sub"])
	require.Equal(t, owner.OrgID, c["org_id"])
	require.Equal(t, []any{}, c["scopes"])
	require.Equal(t, "production", c["environment"])
	require.Equal(t, false, c["intents_api_enabled"])
	require.NotContains(t, c, "intents_require_tee")
	requireProblem(t, agentToken(t, s, id, "ocv_"+strings.Repeat("A", 43)), 401, "invalid_credentials")
	requireProblem(t, agentToken(t, s, owner.UserID, key), 401, "invalid_credentials")

	// Agents are refused on human-only routes; /me and the directory are theirs.
	requireProblem(t, s.Do("POST", "/v1/agents", jwt, map[string]any{"name": "y"}), 403, "human_only")
	requireProblem(t, s.Do("GET", "/v1/agents", jwt, nil), 403, "human_only")
	requireProblem(t, s.Do("POST", "/v1/vaults", jwt, map[string]any{"name": "v"}), 403, "human_only")
	requireProblem(t, s.Do("GET", "/v1/audit/events", jwt, nil), 403, "human_only")
	me := s.Do("GET", "/v1/agents/me", jwt, nil)
	require.Equal(t, http.StatusOK, me.Status, string(me.Body))
	require.Equal(t, owner.UserID, me.JSON(t)["created_by"])
	requireProblem(t, s.Do("GET", "/v1/agents/me", owner.Token, nil), 403, "forbidden")
	dir := s.Do("GET", "/v1/agents/org-directory", jwt, nil)
	require.Equal(t, http.StatusOK, dir.Status)
	require.Len(t, dir.JSON(t)["items"], 1)

	// PATCH changes fields and revokes the JWTs that carry the old claims.
	p := s.Do("PATCH", "/v1/agents/"+id, owner.Token, map[string]any{"description": "builds", "environment": nil})
	require.Equal(t, http.StatusOK, p.Status, string(p.Body))
	require.Nil(t, p.JSON(t)["environment"])
	requireProblem(t, s.Do("GET", "/v1/agents/me", jwt, nil), 401, "invalid_token")
	jwt = agentJWT(t, s, id, key)
	require.NotContains(t, claims(t, jwt), "environment")
	require.Equal(t, http.StatusOK, s.Do("GET", "/v1/agents/me", jwt, nil).Status, "a fresh exchange works at once")

	// Rotation: a new key once, the old key and the old JWTs stop working.
	rot := s.Do("POST", "/v1/agents/"+id+"/rotate-key", owner.Token, nil)
	require.Equal(t, http.StatusOK, rot.Status, string(rot.Body))
	newKey := rot.JSON(t)["api_key"].(string)
	require.NotEqual(t, key, newKey)
	requireProblem(t, agentToken(t, s, id, key), 401, "invalid_credentials")
	requireProblem(t, s.Do("GET", "/v1/agents/me", jwt, nil), 401, "invalid_token")
	jwt = agentJWT(t, s, id, newKey)
	require.Equal(t, http.StatusOK, s.Do("GET", "/v1/agents/me", jwt, nil).Status)

	// Another organization sees nothing.
	other := s.SignUp("agent-other@example.com")
	requireProblem(t, s.Do("GET", "/v1/agents/"+id, other.Token, nil), 404, "not_found")
	requireProblem(t, s.Do("DELETE", "/v1/agents/"+id, other.Token, nil), 404, "not_found")

	// Deletion deactivates: the JWT answers 401 at once, the key too.
	require.Equal(t, http.StatusNoContent, s.Do("DELETE", "/v1/agents/"+id, owner.Token, nil).Status)
	requireProblem(t, s.Do("GET", "/v1/agents/me", jwt, nil), 401, "invalid_token")
	requireProblem(t, agentToken(t, s, id, newKey), 401, "invalid_credentials")
	require.Equal(t, "inactive", s.Do("GET", "/v1/agents/"+id, owner.Token, nil).JSON(t)["status"])
	requireProblem(t, s.Do("DELETE", "/v1/agents/"+id, owner.Token, nil), 404, "not_found")

	// An expired key answers 401.
	id2, key2 := registerAgent(t, s, owner.Token, map[string]any{"name": "short"})
	require.Equal(t, http.StatusOK, agentToken(t, s, id2, key2).Status)
	execSQL(t, s, "UPDATE agents SET api_key_expires_at = now() - interval '1 second' WHERE id = '"+id2+"'")
	requireProblem(t, agentToken(t, s, id2, key2), 401, "invalid_credentials")
}
