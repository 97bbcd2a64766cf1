package test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/test/stack"
)

// acceptInvitation accepts an invitation token with password.
func acceptInvitation(s *stack.Stack, token, password string) stack.Response {
	return s.Do("POST", "/v1/org/invitations/accept", "", map[string]string{"token": token, "password": password})
}

// invite has owner invite email with role and returns the token.
func invite(t *testing.T, s *stack.Stack, ownerToken, email, role string) string {
	t.Helper()
	r := s.Do("POST", "/v1/org/invite", ownerToken, map[string]string{"email": email, "role": role})
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	return r.JSON(t)["token"].(string)
}

// auditActors lists the audit log as token sees it: each event's actor id
// and action.
func auditActors(t *testing.T, s *stack.Stack, token string) (actors, actions []string) {
	t.Helper()
	r := s.Do("GET", "/v1/audit/events?limit=200", token, nil)
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	for _, it := range r.JSON(t)["items"].([]any) {
		e := it.(map[string]any)
		actors = append(actors, e["actor_id"].(string))
		actions = append(actions, e["action"].(string))
	}
	return actors, actions
}

// TestAttackInvitedMemberRoles: a member who joined through an invitation
// (accepted end to end, sealed in the enclave) tries what issue 12 item 6
// did: change, rotate or delete an owner's agent, make signing keys, read
// the organization's audit log. Each is refused with its problem type; the
// owner still does each.
func TestAttackInvitedMemberRoles(t *testing.T) {
	s := stack.Start(t)
	owner := s.SignUp("roles-owner@example.com")
	agentID, _, _ := guardedAgentWithKey(t, s, owner, nil)

	const email, password = "roles-member@example.com", "member-password-1"
	token := invite(t, s, owner.Token, email, "member")

	t.Run("invitation accepted once", func(t *testing.T) {
		requireProblem(t, acceptInvitation(s, token, "short"), 400, "invalid_request")
		requireProblem(t, acceptInvitation(s, "ocvi_"+"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", password), 404, "not_found")
		requireProblem(t, acceptInvitation(s, "not-a-token", password), 404, "not_found")
		r := acceptInvitation(s, token, password)
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
		m := r.JSON(t)
		require.Equal(t, owner.OrgID, m["org_id"])
		require.Equal(t, "member", m["role"])
		requireProblem(t, acceptInvitation(s, token, password), 404, "not_found")
		require.NotContains(t, pgDump(t, s.DatabaseURL), token, "the token is stored only as a hash")
		require.NotContains(t, s.Logs(), token)
	})

	mem := signIn(t, s, email, password)
	member := mem["access_token"].(string)
	c := claims(t, member)
	require.Equal(t, owner.OrgID, c["org_id"])
	require.Equal(t, "member", c["role"])
	memberID := c["sub"].(string)

	t.Run("expired invitation", func(t *testing.T) {
		tok := invite(t, s, owner.Token, "roles-late@example.com", "member")
		execSQL(t, s, `UPDATE org_invites SET expires_at = now() - interval '1 minute' WHERE email_key = 'roles-late@example.com'`)
		requireProblem(t, acceptInvitation(s, tok, password), 410, "gone")
	})

	t.Run("member cannot change the owner's agent", func(t *testing.T) {
		requireProblem(t, s.Do("PATCH", "/v1/agents/"+agentID, member, map[string]any{"raw_signing_enabled": true}), 403, "forbidden")
		requireProblem(t, s.Do("PATCH", "/v1/agents/"+agentID, member, map[string]any{"tx_max_value_eth": 1000}), 403, "forbidden")
		requireProblem(t, s.Do("POST", "/v1/agents/"+agentID+"/rotate-key", member, nil), 403, "forbidden")
		requireProblem(t, s.Do("DELETE", "/v1/agents/"+agentID, member, nil), 403, "forbidden")
		requireProblem(t, s.Do("POST", "/v1/agents", member, map[string]any{"name": "mine", "intents_api_enabled": true}), 403, "forbidden")
	})

	t.Run("member cannot make, rotate or delete signing keys", func(t *testing.T) {
		requireProblem(t, s.Do("POST", "/v1/agents/"+agentID+"/signing-keys", member, map[string]any{"chain": "solana"}), 403, "forbidden")
		requireProblem(t, s.Do("POST", "/v1/agents/"+agentID+"/signing-keys/ethereum/rotate", member, nil), 403, "forbidden")
		requireProblem(t, s.Do("DELETE", "/v1/agents/"+agentID+"/signing-keys/ethereum", member, nil), 403, "forbidden")
		h := http.Header{"X-Auth-Confirm": []string{password}}
		requireProblem(t, s.DoHeaders("POST", "/v1/agents/"+agentID+"/signing-keys/solana/import", member,
			map[string]any{"private_key": "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"}, h), 403, "forbidden")
		// The enclave refuses the member's token itself (a proxy that
		// skipped its check gains nothing).
		require.Equal(t, wire.Forbidden, callWire(t, enclaveSession(t, s), wire.OpSigningKey,
			&wire.SigningKeyRequest{Token: member, OrgID: owner.OrgID, AgentID: agentID, Chain: "solana", Version: 1}, nil))
	})

	t.Run("member sees only its own audit events", func(t *testing.T) {
		actors, actions := auditActors(t, s, member)
		require.NotEmpty(t, actors)
		for _, a := range actors {
			require.Equal(t, memberID, a, "a member sees another actor's event")
		}
		require.Contains(t, actions, "agent.update", "its own refused attempts are listed")
		// The owner sees the organization's events, the member's included.
		require.Eventually(t, func() bool {
			actors, actions := auditActors(t, s, owner.Token)
			return slices.Contains(actors, owner.UserID) && slices.Contains(actors, memberID) && slices.Contains(actions, "agent.create")
		}, 10*time.Second, 200*time.Millisecond)
	})

	t.Run("member cannot open a share addressed to someone else", func(t *testing.T) {
		vault := s.CreateVault(owner.Token, "roles-shares")
		r := s.Do("PUT", "/v1/vaults/"+vault+"/secrets/db", owner.Token, map[string]any{"type": "password", "value": "owner-only"})
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
		secretID := r.JSON(t)["id"].(string)
		toOwner := createShare(t, s, owner.Token, secretID, map[string]any{"recipient_type": "creator", "max_access_count": 2})
		toMember := createShare(t, s, owner.Token, secretID, map[string]any{"recipient_type": "user", "recipient_id": memberID})
		r = openShareAs(t, s, toOwner["id"].(string), member, "", "")
		requireProblem(t, r, http.StatusNotFound, "not_found")
		require.NotContains(t, string(r.Body), "owner-only")
		r = openShareAs(t, s, toOwner["id"].(string), owner.Token, "", "")
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		r = openShareAs(t, s, toMember["id"].(string), member, "", "")
		require.Equal(t, http.StatusOK, r.Status, "a share addressed to the member opens for it: %s", r.Body)
		require.Equal(t, "owner-only", r.JSON(t)["value"])
	})

	t.Run("the owner still can", func(t *testing.T) {
		r := s.Do("PATCH", "/v1/agents/"+agentID, owner.Token, map[string]any{"description": "still the owner's"})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		r = s.Do("POST", "/v1/agents/"+agentID+"/signing-keys", owner.Token, map[string]any{"chain": "solana"})
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
		r = s.Do("POST", "/v1/agents/"+agentID+"/signing-keys/ethereum/rotate", owner.Token, nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		r = s.Do("POST", "/v1/agents/"+agentID+"/rotate-key", owner.Token, nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		id, _ := registerAgent(t, s, owner.Token, map[string]any{"name": "second"})
		r = s.Do("DELETE", "/v1/agents/"+id, owner.Token, nil)
		require.Equal(t, http.StatusNoContent, r.Status, string(r.Body))
	})
}

// TestAttackInvitationExistingAccount: an invitation to an address that
// has an account needs that account's password; the membership is added.
func TestAttackInvitationExistingAccount(t *testing.T) {
	s := stack.Start(t)
	owner := s.SignUp("roles-owner2@example.com")
	other := s.SignUp("roles-other@example.com")
	token := invite(t, s, owner.Token, other.Email, "admin")
	requireProblem(t, acceptInvitation(s, token, "not-the-password"), 401, "invalid_credentials")
	r := acceptInvitation(s, token, other.Password)
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	require.Equal(t, other.UserID, r.JSON(t)["user_id"])
	requireProblem(t, acceptInvitation(s, token, other.Password), 404, "not_found")
	var role string
	rolesQueryRow(t, s, `SELECT role FROM org_members WHERE org_id = '`+owner.OrgID+`' AND user_id = '`+other.UserID+`'`, &role)
	require.Equal(t, "admin", role)
}

// rolesQueryRow scans one row of sql into dest.
func rolesQueryRow(t *testing.T, s *stack.Stack, sql string, dest ...any) {
	t.Helper()
	conn, err := pgx.Connect(stack.Context(t), s.DatabaseURL)
	require.NoError(t, err)
	defer conn.Close(stack.Context(t))
	require.NoError(t, conn.QueryRow(stack.Context(t), sql).Scan(dest...))
}
