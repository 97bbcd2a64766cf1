package test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

// TestUserTokenCutoffs: removing a member, changing its role and changing a
// password make the user's access tokens already issued answer 401 at once,
// while a new sign-in works right away (with the new role).
func TestUserTokenCutoffs(t *testing.T) {
	s := stack.Start(t)
	owner := s.SignUp("cut-owner@example.com")
	admin := s.SignUp("cut-admin@example.com")
	joinAsMember(t, s, admin, owner.OrgID)
	r := s.Do("PATCH", "/v1/org/members/"+admin.UserID, owner.Token, map[string]string{"role": "admin"})
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	adminTok := signIn(t, s, admin.Email, admin.Password)["access_token"].(string)
	other := s.SignUp("cut-other@example.com")
	otherTok := joinAsMember(t, s, other, owner.OrgID)
	require.Equal(t, "admin", claims(t, adminTok)["role"])
	require.Contains(t, claims(t, adminTok), "iat_ms", "human tokens carry a millisecond issue time")

	t.Run("demotion", func(t *testing.T) {
		// The admin may manage members with its admin token.
		require.Equal(t, http.StatusOK, s.Do("GET", "/v1/org/members", adminTok, nil).Status)
		r := s.Do("PATCH", "/v1/org/members/"+admin.UserID, owner.Token, map[string]string{"role": "member"})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		requireProblem(t, s.Do("GET", "/v1/vaults", adminTok, nil), 401, "invalid_token")
		requireProblem(t, s.Do("DELETE", "/v1/org/members/"+other.UserID, adminTok, nil), 401, "invalid_token")

		fresh := signIn(t, s, admin.Email, admin.Password)["access_token"].(string)
		require.Equal(t, "member", claims(t, fresh)["role"])
		require.Equal(t, http.StatusOK, s.Do("GET", "/v1/vaults", fresh, nil).Status, "a new sign-in works at once")
		requireProblem(t, s.Do("DELETE", "/v1/org/members/"+other.UserID, fresh, nil), 403, "forbidden")
		// The owner's own tokens and the other members' are untouched.
		require.Equal(t, http.StatusOK, s.Do("GET", "/v1/vaults", owner.Token, nil).Status)
		require.Equal(t, http.StatusOK, s.Do("GET", "/v1/vaults", otherTok, nil).Status)
	})

	t.Run("removal", func(t *testing.T) {
		require.Equal(t, http.StatusOK, s.Do("GET", "/v1/vaults", otherTok, nil).Status)
		require.Equal(t, http.StatusNoContent, s.Do("DELETE", "/v1/org/members/"+other.UserID, owner.Token, nil).Status)
		requireProblem(t, s.Do("GET", "/v1/vaults", otherTok, nil), 401, "invalid_token")
		requireProblem(t, s.Do("GET", "/v1/org/members", otherTok, nil), 401, "invalid_token")
	})

	t.Run("password change", func(t *testing.T) {
		tok := signIn(t, s, admin.Email, admin.Password)["access_token"].(string)
		r := s.Do("POST", "/v1/auth/change-password", tok,
			map[string]string{"current_password": admin.Password, "new_password": "cut off every token 7"})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		requireProblem(t, s.Do("GET", "/v1/vaults", tok, nil), 401, "invalid_token")
		fresh := signIn(t, s, admin.Email, "cut off every token 7")["access_token"].(string)
		require.Equal(t, http.StatusOK, s.Do("GET", "/v1/vaults", fresh, nil).Status)
	})
}
