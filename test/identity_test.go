package test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

const (
	rootEmail    = "root@example.com"
	rootPassword = "bootstrap-canary-Qw71Zp"
)

func TestIdentity(t *testing.T) {
	s := stack.Start(t, stack.WithProxyEnv("OCV_BOOTSTRAP_ADMIN_EMAIL="+rootEmail, "OCV_BOOTSTRAP_ADMIN_PASSWORD="+rootPassword))
	var secrets []string // every credential the tests see: none may reach the logs or the database

	t.Run("refresh rotation and reuse", func(t *testing.T) {
		me := s.SignUp("refresh@example.com")
		r1 := signIn(t, s, me.Email, me.Password)["refresh_token"].(string)
		require.True(t, strings.HasPrefix(r1, "ocvr_"), "password sign-in returns a refresh token")

		r := s.Do("POST", "/v1/auth/refresh", "", map[string]string{"refresh_token": r1})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		m := r.JSON(t)
		r2, access := m["refresh_token"].(string), m["access_token"].(string)
		require.NotEqual(t, r1, r2, "every refresh rotates the token")
		require.Equal(t, http.StatusOK, s.Do("GET", "/v1/vaults", access, nil).Status)
		secrets = append(secrets, r1, r2, access)

		// r1 is spent: presenting it again revokes the family, r2 included.
		requireProblem(t, s.Do("POST", "/v1/auth/refresh", "", map[string]string{"refresh_token": r1}), 401, "invalid_token")
		requireProblem(t, s.Do("POST", "/v1/auth/refresh", "", map[string]string{"refresh_token": r2}), 401, "invalid_token")
		requireProblem(t, s.Do("POST", "/v1/auth/refresh", "", map[string]string{"refresh_token": "ocvr_nope"}), 401, "invalid_token")
		requireProblem(t, s.Do("POST", "/v1/auth/refresh", "", map[string]string{}), 400, "invalid_request")

		// Signing out with the refresh token ends that family too.
		m = signIn(t, s, me.Email, me.Password)
		r3 := m["refresh_token"].(string)
		r = s.Do("DELETE", "/v1/auth/token", m["access_token"].(string), map[string]string{"refresh_token": r3})
		require.Equal(t, http.StatusNoContent, r.Status, string(r.Body))
		requireProblem(t, s.Do("POST", "/v1/auth/refresh", "", map[string]string{"refresh_token": r3}), 401, "invalid_token")

		events := s.Do("GET", "/v1/audit/events?action=auth.refresh.family_revoked", me.Token, nil)
		require.Equal(t, http.StatusOK, events.Status)
		require.Len(t, events.JSON(t)["items"], 1, "the reuse is in the organization's audit trail")
	})

	t.Run("personal API keys", func(t *testing.T) {
		me := s.SignUp("keys@example.com")
		r := s.Do("POST", "/v1/auth/api-keys", me.Token, map[string]any{"name": " ci "})
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
		created := r.JSON(t)
		key, id := created["key"].(string), created["id"].(string)
		secrets = append(secrets, key)
		require.True(t, strings.HasPrefix(key, "ocvk_"))
		require.Equal(t, "ci", created["name"])
		require.Equal(t, "ocvk_", created["prefix"])
		require.Equal(t, key[len(key)-4:], created["last_four"])
		require.Nil(t, created["expires_at"])

		list := s.Do("GET", "/v1/auth/api-keys", me.Token, nil)
		require.Equal(t, http.StatusOK, list.Status)
		require.NotContains(t, string(list.Body), key, "a listing never shows the key")
		require.Len(t, list.JSON(t)["items"], 1)

		// The key works directly as a bearer value, on human-only routes too.
		require.Equal(t, http.StatusOK, s.Do("GET", "/v1/vaults", key, nil).Status)
		require.Equal(t, http.StatusOK, s.Do("GET", "/v1/auth/api-keys", key, nil).Status)
		requireProblem(t, s.Do("DELETE", "/v1/auth/token", key, nil), 400, "invalid_request")
		// And through the exchange, without a refresh token.
		r = s.Do("POST", "/v1/auth/api-key-token", "", map[string]string{"api_key": key})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		m := r.JSON(t)
		require.Nil(t, m["refresh_token"])
		exchanged := m["access_token"].(string)
		require.Equal(t, me.UserID, claims(t, exchanged)["sub"])
		require.Equal(t, http.StatusOK, s.Do("GET", "/v1/vaults", exchanged, nil).Status)

		// Deleted: refused at once, both ways.
		require.Equal(t, http.StatusNoContent, s.Do("DELETE", "/v1/auth/api-keys/"+id, me.Token, nil).Status)
		requireProblem(t, s.Do("GET", "/v1/vaults", key, nil), 401, "invalid_token")
		requireProblem(t, s.Do("POST", "/v1/auth/api-key-token", "", map[string]string{"api_key": key}), 401, "invalid_credentials")
		requireProblem(t, s.Do("DELETE", "/v1/auth/api-keys/"+id, me.Token, nil), 404, "not_found")

		// Expired: refused. (The expiry is moved into the past before the key's first use.)
		requireProblem(t, s.Do("POST", "/v1/auth/api-keys", me.Token, map[string]any{"name": "old", "expires_at": "2001-01-01T00:00:00Z"}),
			400, "invalid_request")
		future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		r = s.Do("POST", "/v1/auth/api-keys", me.Token, map[string]any{"name": "soon", "expires_at": future})
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
		soon := r.JSON(t)
		require.Equal(t, future, soon["expires_at"])
		execSQL(t, s, `UPDATE api_keys SET expires_at = now() - interval '1 minute' WHERE id = '`+soon["id"].(string)+`'`)
		requireProblem(t, s.Do("GET", "/v1/vaults", soon["key"].(string), nil), 401, "invalid_token")
		requireProblem(t, s.Do("POST", "/v1/auth/api-key-token", "", map[string]string{"api_key": soon["key"].(string)}), 401, "invalid_credentials")
		secrets = append(secrets, soon["key"].(string))

		// Another user cannot delete the key.
		other := s.SignUp("keys-other@example.com")
		requireProblem(t, s.Do("DELETE", "/v1/auth/api-keys/"+soon["id"].(string), other.Token, nil), 404, "not_found")
	})

	t.Run("lockout after ten failures", func(t *testing.T) {
		me := s.SignUp("lockout@example.com")
		wrong := map[string]string{"email": me.Email, "password": "wrong password"}
		for i := 0; i < 9; i++ {
			requireProblem(t, s.Do("POST", "/v1/auth/token", "", wrong), 401, "invalid_credentials")
		}
		r := s.Do("POST", "/v1/auth/token", "", wrong)
		requireProblem(t, r, 401, "account_locked")
		require.Contains(t, r.JSON(t)["detail"], "unlocks at")
		secs, err := strconv.Atoi(r.Header.Get("Retry-After"))
		require.NoError(t, err)
		require.Positive(t, secs)
		// The right password does not help while locked.
		requireProblem(t, s.Do("POST", "/v1/auth/token", "", map[string]string{"email": me.Email, "password": me.Password}),
			401, "account_locked")

		// Once the lock is over, a sign-in works and restarts the count.
		execSQL(t, s, `UPDATE users SET locked_until = now() - interval '1 second' WHERE id = '`+me.UserID+`'`)
		signIn(t, s, me.Email, me.Password)
		for i := 0; i < 9; i++ {
			requireProblem(t, s.Do("POST", "/v1/auth/token", "", wrong), 401, "invalid_credentials")
		}
		events := s.Do("GET", "/v1/audit/events?action=auth.lockout", me.Token, nil)
		require.Len(t, events.JSON(t)["items"], 1)
	})

	t.Run("change and set password", func(t *testing.T) {
		me := s.SignUp("password@example.com")
		refresh := signIn(t, s, me.Email, me.Password)["refresh_token"].(string)
		newPassword := "a brand new password 42"
		secrets = append(secrets, refresh, newPassword)

		requireProblem(t, s.Do("POST", "/v1/auth/change-password", me.Token,
			map[string]string{"current_password": "not it", "new_password": newPassword}), 401, "invalid_credentials")
		requireProblem(t, s.Do("POST", "/v1/auth/change-password", me.Token,
			map[string]string{"current_password": me.Password, "new_password": "short"}), 400, "invalid_request")
		requireProblem(t, s.Do("POST", "/v1/auth/change-password", me.Token, map[string]string{"current_password": me.Password}),
			400, "invalid_request")
		r := s.Do("POST", "/v1/auth/change-password", me.Token, map[string]string{"current_password": me.Password, "new_password": newPassword})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.NotEmpty(t, r.JSON(t)["message"])
		requireProblem(t, s.Do("POST", "/v1/auth/token", "", map[string]string{"email": me.Email, "password": me.Password}), 401, "invalid_credentials")
		requireProblem(t, s.Do("GET", "/v1/vaults", me.Token, nil), 401, "invalid_token")
		tok := signIn(t, s, me.Email, newPassword)["access_token"].(string)
		require.Equal(t, http.StatusOK, s.Do("GET", "/v1/vaults", tok, nil).Status, "a sign-in right after the change works")
		requireProblem(t, s.Do("POST", "/v1/auth/refresh", "", map[string]string{"refresh_token": refresh}), 401, "invalid_token")

		// Set-password is for users without one.
		requireProblem(t, s.Do("POST", "/v1/auth/set-password", tok, map[string]string{"password": "another one 1"}), 400, "invalid_request")
		execSQL(t, s, `UPDATE users SET password_hash = NULL WHERE id = '`+me.UserID+`'`)
		requireProblem(t, s.Do("POST", "/v1/auth/change-password", tok,
			map[string]string{"current_password": newPassword, "new_password": "whatever 123"}), 400, "invalid_request")
		requireProblem(t, s.Do("POST", "/v1/auth/set-password", tok, map[string]string{"password": "short"}), 400, "invalid_request")
		// Clearing the hash in PostgreSQL does not clear the password the
		// enclave sealed: a token alone cannot replace it.
		requireProblem(t, s.Do("POST", "/v1/auth/set-password", tok, map[string]string{"password": "set at last 99"}), 403, "forbidden")
		tok = signIn(t, s, me.Email, newPassword)["access_token"].(string)
		require.Equal(t, http.StatusOK, s.Do("GET", "/v1/vaults", tok, nil).Status)
	})

	t.Run("settings", func(t *testing.T) {
		me := s.SignUp("settings@example.com")
		r := s.Do("GET", "/v1/auth/settings", me.Token, nil)
		require.Equal(t, http.StatusOK, r.Status)
		require.Equal(t, false, r.JSON(t)["require_passkey_for_vaults"])
		r = s.Do("PATCH", "/v1/auth/settings", me.Token, map[string]bool{"require_passkey_for_vaults": true})
		requireProblem(t, r, 400, "invalid_request")
		require.Contains(t, r.JSON(t)["detail"], "register a passkey first")
		requireProblem(t, s.Do("PATCH", "/v1/auth/settings", me.Token, map[string]any{}), 400, "invalid_request")
		r = s.Do("PATCH", "/v1/auth/settings", me.Token, map[string]bool{"require_passkey_for_vaults": false})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.Equal(t, false, r.JSON(t)["require_passkey_for_vaults"])
	})

	t.Run("admin routes", func(t *testing.T) {
		me := s.SignUp("not-admin@example.com")
		requireProblem(t, s.Do("GET", "/v1/admin/users", me.Token, nil), 403, "forbidden")

		m := signIn(t, s, rootEmail, rootPassword)
		root := m["access_token"].(string)
		require.Equal(t, "super_admin", claims(t, root)["platform_role"])
		require.Nil(t, claims(t, me.Token)["platform_role"])
		r := s.Do("GET", "/v1/admin/users?limit=500", root, nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		roles := map[string]any{}
		for _, it := range r.JSON(t)["items"].([]any) {
			u := it.(map[string]any)
			roles[u["email"].(string)] = u["platform_role"]
		}
		require.Equal(t, "super_admin", roles[rootEmail])
		require.Contains(t, roles, me.Email)
		require.Nil(t, roles[me.Email])

		page := s.Do("GET", "/v1/admin/users?limit=1", root, nil).JSON(t)
		require.Len(t, page["items"], 1)
		next := s.Do("GET", "/v1/admin/users?limit=1&cursor="+page["next_cursor"].(string), root, nil)
		require.Equal(t, http.StatusOK, next.Status)
		require.NotEqual(t, page["items"], next.JSON(t)["items"])
	})

	t.Run("organization members and invitations", func(t *testing.T) {
		owner := s.SignUp("org-owner@example.com")
		r := s.Do("GET", "/v1/org/members", owner.Token, nil)
		require.Equal(t, http.StatusOK, r.Status)
		items := r.JSON(t)["items"].([]any)
		require.Len(t, items, 1)
		m := items[0].(map[string]any)
		require.Equal(t, owner.UserID, m["id"])
		require.Equal(t, "owner", m["role"])
		require.NotEmpty(t, m["joined_at"])

		r = s.Do("POST", "/v1/org/invite", owner.Token, map[string]string{"email": "invitee@example.com", "role": "admin"})
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
		inv := r.JSON(t)
		token := inv["token"].(string)
		secrets = append(secrets, token)
		require.True(t, strings.HasPrefix(token, "ocvi_"))
		require.Equal(t, "admin", inv["role"])
		require.Equal(t, owner.UserID, inv["invited_by"])
		require.Equal(t, true, inv["notified"])
		require.Contains(t, s.Logs(), inv["id"].(string), "the log-only mail sender logs the invitation id")

		tests := map[string]struct {
			body       map[string]string
			wantStatus int
			wantType   string
		}{
			"fail capitalised role": {body: map[string]string{"email": "x@example.com", "role": "Admin"}, wantStatus: 400, wantType: "invalid_request"},
			"fail unknown role":     {body: map[string]string{"email": "x@example.com", "role": "viewer"}, wantStatus: 400, wantType: "invalid_request"},
			"fail bad email":        {body: map[string]string{"email": "not an address", "role": "member"}, wantStatus: 400, wantType: "invalid_request"},
			"fail pending":          {body: map[string]string{"email": "INVITEE@example.com", "role": "member"}, wantStatus: 409, wantType: "conflict"},
			"fail already member":   {body: map[string]string{"email": owner.Email, "role": "member"}, wantStatus: 409, wantType: "conflict"},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				requireProblem(t, s.Do("POST", "/v1/org/invite", owner.Token, tc.body), tc.wantStatus, tc.wantType)
			})
		}

		// Roles of the inviter: members may not invite, admins may not invite owners.
		member := s.SignUp("org-member@example.com")
		execSQL(t, s, `UPDATE org_members SET role = 'member' WHERE user_id = '`+member.UserID+`'`)
		sealMembership(t, s, member.OrgID, member.UserID, "member")
		memberToken := signIn(t, s, member.Email, member.Password)["access_token"].(string)
		requireProblem(t, s.Do("POST", "/v1/org/invite", memberToken, map[string]string{"email": "y@example.com", "role": "member"}),
			403, "forbidden")
		execSQL(t, s, `UPDATE org_members SET role = 'admin' WHERE user_id = '`+member.UserID+`'`)
		sealMembership(t, s, member.OrgID, member.UserID, "admin")
		adminToken := signIn(t, s, member.Email, member.Password)["access_token"].(string)
		requireProblem(t, s.Do("POST", "/v1/org/invite", adminToken, map[string]string{"email": "y@example.com", "role": "owner"}),
			403, "forbidden")
		r = s.Do("POST", "/v1/org/invite", adminToken, map[string]string{"email": "y@example.com", "role": "member"})
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
		secrets = append(secrets, r.JSON(t)["token"].(string))
	})

	t.Run("no credential in the logs or the database", func(t *testing.T) {
		logs, dump := s.Logs(), pgDump(t, s.DatabaseURL)
		require.NotEmpty(t, secrets)
		for _, v := range append(secrets, rootPassword) {
			require.NotContains(t, logs, v)
			require.NotContains(t, dump, v)
		}
	})
}

// signIn signs in with a password and returns the token response.
func signIn(t *testing.T, s *stack.Stack, email, password string) map[string]any {
	t.Helper()
	r := s.Do("POST", "/v1/auth/token", "", map[string]string{"email": email, "password": password})
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	return r.JSON(t)
}

func requireProblem(t *testing.T, r stack.Response, status int, typ string) {
	t.Helper()
	require.Equal(t, status, r.Status, string(r.Body))
	require.Equal(t, "application/problem+json", r.Header.Get("Content-Type"))
	require.Equal(t, typ, r.JSON(t)["type"])
}

// claims decodes a JWT's payload without verifying it.
func claims(t *testing.T, jwt string) map[string]any {
	t.Helper()
	parts := strings.Split(jwt, ".")
	require.Len(t, parts, 3)
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}
