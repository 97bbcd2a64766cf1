package test

import (
	"bufio"
	"context"
	"io"
	"mime/quotedprintable"
	"net/http"
	netmail "net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

// doFrom sends a GET with an X-Forwarded-For header.
func doFrom(t *testing.T, s *stack.Stack, path, token, xff string) int {
	t.Helper()
	req, err := http.NewRequest("GET", s.BaseURL+path, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("X-Forwarded-For", xff)
	resp, err := s.HTTP.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}

func addIPRule(t *testing.T, s *stack.Stack, token, cidr, typ string) map[string]any {
	t.Helper()
	r := s.Do("POST", "/v1/security/ip-rules", token, map[string]any{"cidr": cidr, "rule_type": typ, "description": "e2e"})
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	return r.JSON(t)
}

func TestIPFilter(t *testing.T) {
	// The test client calls from 127.0.0.1, which is made a trusted proxy,
	// so X-Forwarded-For decides the client address when a test sends it.
	s := stack.Start(t, stack.WithProxyEnv("OCV_TRUSTED_PROXIES=127.0.0.1/32"))

	t.Run("block rule for the caller's address locks it out", func(t *testing.T) {
		a := s.SignUp("ip-block@example.com")
		addIPRule(t, s, a.Token, "127.0.0.1", "block")
		requireProblem(t, s.Do("GET", "/v1/vaults", a.Token, nil), 403, "ip_denied")
		requireProblem(t, s.Do("GET", "/v1/security/ip-rules", a.Token, nil), 403, "ip_denied")
		// Locked out, the owner cannot delete the rule through the API: an
		// operator removes it in the database (and announces it).
		execSQL(t, s, "DELETE FROM ip_rules WHERE org_id = '"+a.OrgID+"'")
		execSQL(t, s, "SELECT pg_notify('ocv_ip_rules', '"+a.OrgID+"')")
		require.Eventually(t, func() bool { return s.Do("GET", "/v1/vaults", a.Token, nil).Status == http.StatusOK },
			30*time.Second, 100*time.Millisecond, "the notification (or the cache lifetime) lifts the block")
	})

	t.Run("allow list", func(t *testing.T) {
		a := s.SignUp("ip-allow-other@example.com")
		addIPRule(t, s, a.Token, "10.0.0.0/8", "allow")
		requireProblem(t, s.Do("GET", "/v1/vaults", a.Token, nil), 403, "ip_denied")

		b := s.SignUp("ip-allow-local@example.com")
		addIPRule(t, s, b.Token, "127.0.0.0/8", "allow")
		addIPRule(t, s, b.Token, "10.0.0.0/8", "allow")
		require.Equal(t, http.StatusOK, s.Do("GET", "/v1/vaults", b.Token, nil).Status)
		// Through the trusted proxy, the forwarded address is the client.
		require.Equal(t, http.StatusOK, doFrom(t, s, "/v1/vaults", b.Token, "10.20.30.40"))
		require.Equal(t, http.StatusForbidden, doFrom(t, s, "/v1/vaults", b.Token, "198.51.100.7"))
		// Block beats allow.
		addIPRule(t, s, b.Token, "10.20.0.0/16", "block")
		require.Equal(t, http.StatusForbidden, doFrom(t, s, "/v1/vaults", b.Token, "10.20.30.40"))
		require.Equal(t, http.StatusOK, doFrom(t, s, "/v1/vaults", b.Token, "10.1.1.1"))

		// Public routes have no organization: the filter does not apply.
		require.Equal(t, http.StatusOK, s.Do("GET", "/v1/health", "", nil).Status)
	})

	t.Run("forwarded address in the audit trail", func(t *testing.T) {
		a := s.SignUp("ip-audit@example.com")
		require.Equal(t, http.StatusOK, doFrom(t, s, "/v1/vaults", a.Token, "198.51.100.23"))
		ev := s.Do("GET", "/v1/audit/events?action=vault.list", a.Token, nil)
		require.Equal(t, http.StatusOK, ev.Status)
		items := ev.JSON(t)["items"].([]any)
		require.NotEmpty(t, items)
		require.Equal(t, "198.51.100.23", items[0].(map[string]any)["client_ip"])
	})

	t.Run("rule validation, listing and deletion", func(t *testing.T) {
		a := s.SignUp("ip-crud@example.com")
		other := s.SignUp("ip-crud-other@example.com")
		v6 := addIPRule(t, s, a.Token, "2001:db8::1", "block")
		require.Equal(t, "2001:db8::1/128", v6["cidr"])
		require.Equal(t, "block", v6["rule_type"])
		require.Equal(t, "e2e", v6["description"])
		require.Equal(t, a.UserID, v6["created_by"])
		require.Equal(t, "2001:db8::/32", addIPRule(t, s, a.Token, "2001:db8::5/32", "block")["cidr"], "masked")
		require.Equal(t, "192.0.2.0/24", addIPRule(t, s, a.Token, "::ffff:192.0.2.9/120", "block")["cidr"], "unmapped")
		requireProblem(t, s.Do("POST", "/v1/security/ip-rules", a.Token, map[string]any{"cidr": "2001:db8::1/128", "rule_type": "block"}), 409, "conflict")
		for name, body := range map[string]map[string]any{
			"bad prefix":  {"cidr": "10.0.0.0/33", "rule_type": "block"},
			"hostname":    {"cidr": "example.com", "rule_type": "block"},
			"bad type":    {"cidr": "10.0.0.0/8", "rule_type": "deny"},
			"no type":     {"cidr": "10.0.0.0/8"},
			"control chr": {"cidr": "10.0.0.0/8", "rule_type": "block", "description": "a\nb"},
		} {
			requireProblem(t, s.Do("POST", "/v1/security/ip-rules", a.Token, body), 400, "invalid_request")
			_ = name
		}
		list := s.Do("GET", "/v1/security/ip-rules?limit=2", a.Token, nil)
		require.Equal(t, http.StatusOK, list.Status)
		page := list.JSON(t)
		require.Len(t, page["items"], 2)
		require.NotNil(t, page["next_cursor"])

		id := v6["id"].(string)
		requireProblem(t, s.Do("DELETE", "/v1/security/ip-rules/"+id, other.Token, nil), 404, "not_found")
		require.Equal(t, http.StatusNoContent, s.Do("DELETE", "/v1/security/ip-rules/"+id, a.Token, nil).Status)
		requireProblem(t, s.Do("DELETE", "/v1/security/ip-rules/"+id, a.Token, nil), 404, "not_found")
		requireProblem(t, s.Do("DELETE", "/v1/security/ip-rules/nope", a.Token, nil), 400, "invalid_request")

		// Members read the rules but may not change them.
		m := s.SignUp("ip-crud-member@example.com")
		mt := joinAsMember(t, s, m, a.OrgID)
		require.Equal(t, http.StatusOK, s.Do("GET", "/v1/security/ip-rules", mt, nil).Status)
		requireProblem(t, s.Do("POST", "/v1/security/ip-rules", mt, map[string]any{"cidr": "10.0.0.0/8", "rule_type": "allow"}), 403, "forbidden")
	})

	t.Run("a database error fails closed", func(t *testing.T) {
		a := s.SignUp("ip-dberr@example.com")
		ddl(t, s, "ALTER TABLE ip_rules RENAME TO ip_rules_away")
		r := s.Do("GET", "/v1/vaults", a.Token, nil)
		ddl(t, s, "ALTER TABLE ip_rules_away RENAME TO ip_rules")
		requireProblem(t, r, 500, "internal_error")
		require.Equal(t, http.StatusOK, s.Do("GET", "/v1/vaults", a.Token, nil).Status)
	})
}

// ddl runs a statement that affects no rows.
func ddl(t *testing.T, s *stack.Stack, sql string) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), s.DatabaseURL)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	_, err = conn.Exec(context.Background(), sql)
	require.NoError(t, err)
}

func TestOrgMembers(t *testing.T) {
	s := stack.Start(t)
	owner := s.SignUp("mem-owner@example.com")
	b := s.SignUp("mem-b@example.com")
	bt := joinAsMember(t, s, b, owner.OrgID)
	d := s.SignUp("mem-admin@example.com")
	joinAsMember(t, s, d, owner.OrgID)
	outsider := s.SignUp("mem-outsider@example.com")

	patch := func(token, user, role string) stack.Response {
		return s.Do("PATCH", "/v1/org/members/"+user, token, map[string]string{"role": role})
	}
	r := patch(owner.Token, d.UserID, "admin")
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	require.Equal(t, "admin", r.JSON(t)["role"])
	require.Equal(t, d.Email, r.JSON(t)["email"])
	dt := signIn(t, s, d.Email, d.Password)["access_token"].(string)

	t.Run("validation and scope", func(t *testing.T) {
		requireProblem(t, patch(owner.Token, b.UserID, "Owner"), 400, "invalid_request")
		requireProblem(t, s.Do("PATCH", "/v1/org/members/"+b.UserID, owner.Token, map[string]string{}), 400, "invalid_request")
		requireProblem(t, patch(owner.Token, "not-a-uuid", "admin"), 400, "invalid_request")
		requireProblem(t, patch(owner.Token, outsider.UserID, "admin"), 404, "not_found")
		requireProblem(t, s.Do("DELETE", "/v1/org/members/"+outsider.UserID, owner.Token, nil), 404, "not_found")
		requireProblem(t, patch(bt, d.UserID, "member"), 403, "forbidden")
		requireProblem(t, s.Do("DELETE", "/v1/org/members/"+d.UserID, bt, nil), 403, "forbidden")
	})

	t.Run("only owners touch the owner role", func(t *testing.T) {
		requireProblem(t, patch(dt, b.UserID, "owner"), 403, "forbidden")
		requireProblem(t, patch(dt, owner.UserID, "member"), 403, "forbidden")
		requireProblem(t, s.Do("DELETE", "/v1/org/members/"+owner.UserID, dt, nil), 403, "forbidden")
		r := patch(dt, b.UserID, "admin")
		require.Equal(t, http.StatusOK, r.Status, "an admin manages non-owners: %s", r.Body)
		require.Equal(t, http.StatusOK, patch(dt, b.UserID, "member").Status)
		// Each change cut off b's tokens; a new sign-in carries the new role.
		requireProblem(t, s.Do("GET", "/v1/vaults", bt, nil), 401, "invalid_token")
		bt = signIn(t, s, b.Email, b.Password)["access_token"].(string)
	})

	t.Run("never the last owner", func(t *testing.T) {
		r := patch(owner.Token, owner.UserID, "admin")
		requireProblem(t, r, 409, "conflict")
		require.Contains(t, r.JSON(t)["detail"], "last owner")
		requireProblem(t, s.Do("DELETE", "/v1/org/members/"+owner.UserID, owner.Token, nil), 409, "conflict")
	})

	t.Run("removal takes policies with it", func(t *testing.T) {
		vault := s.CreateVault(owner.Token, "mem-vault")
		createPolicy(t, s, owner.Token, vault, map[string]any{"secret_path_pattern": "app/**", "principal_type": "user",
			"principal_id": b.UserID, "permissions": []string{"read"}})
		require.Equal(t, http.StatusOK, s.Do("GET", "/v1/vaults/"+vault, bt, nil).Status)

		require.Equal(t, http.StatusNoContent, s.Do("DELETE", "/v1/org/members/"+b.UserID, owner.Token, nil).Status)
		ps := s.Do("GET", "/v1/vaults/"+vault+"/policies", owner.Token, nil)
		require.Equal(t, http.StatusOK, ps.Status)
		require.Empty(t, ps.JSON(t)["items"], "the member's policies are gone")
		ms := s.Do("GET", "/v1/org/members", owner.Token, nil)
		require.NotContains(t, string(ms.Body), b.UserID)
		requireProblem(t, s.Do("DELETE", "/v1/org/members/"+b.UserID, owner.Token, nil), 404, "not_found")

		// The vault's policy set moved on and the enclave sealed it again.
		conn, err := pgx.Connect(context.Background(), s.DatabaseURL)
		require.NoError(t, err)
		defer conn.Close(context.Background())
		var version int64
		var sealed bool
		require.NoError(t, conn.QueryRow(context.Background(), `SELECT version, mac IS NOT NULL FROM vault_policy_sets
			WHERE vault_id = $1`, vault).Scan(&version, &sealed))
		require.EqualValues(t, 2, version, "created, then the member's policy removed")
		require.True(t, sealed)
	})

	t.Run("owner hand-over", func(t *testing.T) {
		require.Equal(t, http.StatusOK, patch(owner.Token, d.UserID, "owner").Status)
		r := patch(owner.Token, owner.UserID, "member")
		require.Equal(t, http.StatusOK, r.Status, "with a second owner the first may step down: %s", r.Body)
		dt := signIn(t, s, d.Email, d.Password)["access_token"].(string)
		requireProblem(t, patch(dt, d.UserID, "admin"), 409, "conflict")
	})
}

func TestInviteMailOutbox(t *testing.T) {
	s := stack.Start(t)
	owner := s.SignUp("mail-owner@example.com")
	r := s.Do("POST", "/v1/org/invite", owner.Token, map[string]string{"email": "Invitee@Example.com", "role": "member"})
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	inv := r.JSON(t)
	token := inv["token"].(string)
	require.Equal(t, true, inv["notified"])

	dir := filepath.Join(s.Dir, "mail")
	st, err := os.Stat(dir)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), st.Mode().Perm())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	info, err := entries[0].Info()
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	raw, err := os.ReadFile(filepath.Join(dir, entries[0].Name()))
	require.NoError(t, err)
	msg, err := netmail.ReadMessage(bufio.NewReader(strings.NewReader(string(raw))))
	require.NoError(t, err)
	require.Equal(t, "<Invitee@Example.com>", msg.Header.Get("To"))
	body, err := io.ReadAll(quotedprintable.NewReader(msg.Body))
	require.NoError(t, err)
	require.True(t, strings.Contains(string(body), token), "the invitation token is in the message")
	require.True(t, strings.Contains(string(body), inv["id"].(string)))
	require.False(t, strings.Contains(s.Logs(), token), "the invitation token never reaches a log")
}
