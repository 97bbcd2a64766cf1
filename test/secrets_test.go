package test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

func TestSecretLifecycle(t *testing.T) {
	s := stack.Start(t)
	me := s.SignUp("alice@example.com")
	other := s.SignUp("mallory@example.com")
	vault := s.CreateVault(me.Token, "  production  ")

	t.Run("value round-trips and versions grow", func(t *testing.T) {
		r := s.Do("PUT", "/v1/vaults/"+vault+"/secrets/db/primary/password", me.Token,
			map[string]any{"type": "password", "value": "e2e-value-one-7Q2x", "metadata": map[string]string{"owner": "ops"}})
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
		require.NotContains(t, string(r.Body), "e2e-value-one")
		r = s.Do("PUT", "/v1/vaults/"+vault+"/secrets/db/primary/password", me.Token,
			map[string]any{"type": "password", "value": "e2e-value-two-9K3z"})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.EqualValues(t, 2, r.JSON(t)["version"])

		r = s.Do("GET", "/v1/vaults/"+vault+"/secrets/db/primary/password", me.Token, nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		m := r.JSON(t)
		require.Equal(t, "e2e-value-two-9K3z", m["value"])
		require.Equal(t, "db/primary/password", m["path"])
		require.EqualValues(t, 2, m["version"])
	})

	t.Run("lists carry no values", func(t *testing.T) {
		r := s.Do("GET", "/v1/vaults/"+vault+"/secrets", me.Token, nil)
		require.Equal(t, http.StatusOK, r.Status)
		require.NotContains(t, string(r.Body), "e2e-value")
		require.NotContains(t, string(r.Body), `"value"`)
		items := r.JSON(t)["items"].([]any)
		require.Len(t, items, 1)
	})

	t.Run("vault name trimmed and unique", func(t *testing.T) {
		r := s.Do("GET", "/v1/vaults/"+vault, me.Token, nil)
		require.Equal(t, "production", r.JSON(t)["name"])
		r = s.Do("POST", "/v1/vaults", me.Token, map[string]string{"name": "production "})
		require.Equal(t, http.StatusConflict, r.Status)
		r = s.Do("POST", "/v1/vaults", me.Token, map[string]string{"name": "   "})
		require.Equal(t, http.StatusBadRequest, r.Status)
		r = s.Do("POST", "/v1/vaults", me.Token, map[string]string{"name": strings.Repeat("v", 256)})
		require.Equal(t, http.StatusBadRequest, r.Status)
	})

	t.Run("another organization gets 404", func(t *testing.T) {
		for _, c := range []struct{ method, path string }{
			{"GET", "/v1/vaults/" + vault},
			{"GET", "/v1/vaults/" + vault + "/secrets"},
			{"GET", "/v1/vaults/" + vault + "/secrets/db/primary/password"},
			{"DELETE", "/v1/vaults/" + vault + "/secrets/db/primary/password"},
			{"DELETE", "/v1/vaults/" + vault},
		} {
			r := s.Do(c.method, c.path, other.Token, nil)
			require.Equal(t, http.StatusNotFound, r.Status, c.method+" "+c.path)
			require.Equal(t, "application/problem+json", r.Header.Get("Content-Type"))
			// No existence oracle: the store now names the missing
			// resource, and another organization's vault must answer
			// exactly like a vault that exists nowhere.
			missing := s.Do(c.method, strings.Replace(c.path, vault, "01a20ed4-0000-7000-8000-000000000000", 1), other.Token, nil)
			require.Equal(t, missing.Status, r.Status, c.method+" "+c.path)
			require.Equal(t, missing.JSON(t)["detail"], r.JSON(t)["detail"], c.method+" "+c.path)
		}
		r := s.Do("PUT", "/v1/vaults/"+vault+"/secrets/x", other.Token, map[string]any{"type": "password", "value": "x"})
		require.Equal(t, http.StatusNotFound, r.Status)
		// Mine is untouched.
		r = s.Do("GET", "/v1/vaults/"+vault+"/secrets/db/primary/password", me.Token, nil)
		require.Equal(t, http.StatusOK, r.Status)
	})

	t.Run("expired secret answers 410", func(t *testing.T) {
		r := s.Do("PUT", "/v1/vaults/"+vault+"/secrets/short-lived", me.Token,
			map[string]any{"type": "api_key", "value": "e2e-value-expiring", "expires_at": "2099-01-01T00:00:00Z"})
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
		execSQL(t, s, `UPDATE secrets SET expires_at = now() - interval '1 minute' WHERE path = 'short-lived'`)
		r = s.Do("GET", "/v1/vaults/"+vault+"/secrets/short-lived", me.Token, nil)
		require.Equal(t, http.StatusGone, r.Status, string(r.Body))
		require.NotContains(t, string(r.Body), "e2e-value")
	})

	t.Run("delete", func(t *testing.T) {
		r := s.Do("DELETE", "/v1/vaults/"+vault+"/secrets/short-lived", me.Token, nil)
		require.Equal(t, http.StatusNoContent, r.Status)
		r = s.Do("GET", "/v1/vaults/"+vault+"/secrets/short-lived", me.Token, nil)
		require.Equal(t, http.StatusNotFound, r.Status)
	})

	t.Run("revoked token stops working", func(t *testing.T) {
		a := s.SignUp("revoke@example.com")
		require.Equal(t, http.StatusOK, s.Do("GET", "/v1/vaults", a.Token, nil).Status)
		require.Equal(t, http.StatusNoContent, s.Do("DELETE", "/v1/auth/token", a.Token, nil).Status)
		r := s.Do("GET", "/v1/vaults", a.Token, nil)
		require.Equal(t, http.StatusUnauthorized, r.Status)
	})
}

func TestTamperedStorageNeverDecrypts(t *testing.T) {
	s := stack.Start(t)
	me := s.SignUp("tamper@example.com")
	vault := s.CreateVault(me.Token, "v")
	for _, p := range []string{"a", "b", "c"} {
		r := s.Do("PUT", "/v1/vaults/"+vault+"/secrets/"+p, me.Token, map[string]any{"type": "password", "value": "e2e-value-" + p})
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	}
	// Flip one byte of a's ciphertext.
	execSQL(t, s, `UPDATE secret_versions v SET ciphertext = overlay(ciphertext placing decode(lpad(to_hex(get_byte(ciphertext, 20) # 1), 2, '0'), 'hex') from 21 for 1)
		FROM secrets s WHERE s.org_id = v.org_id AND s.id = v.secret_id AND s.path = 'a'`)
	// Swap the wrapped data keys of b and c.
	execSQL(t, s, `WITH b AS (SELECT v.secret_id, v.wrapped_dek FROM secret_versions v JOIN secrets s ON s.id = v.secret_id WHERE s.path = 'b'),
		c AS (SELECT v.secret_id, v.wrapped_dek FROM secret_versions v JOIN secrets s ON s.id = v.secret_id WHERE s.path = 'c')
		UPDATE secret_versions v SET wrapped_dek = CASE WHEN v.secret_id = b.secret_id THEN c.wrapped_dek ELSE b.wrapped_dek END
		FROM b, c WHERE v.secret_id IN (b.secret_id, c.secret_id)`)
	for _, p := range []string{"a", "b", "c"} {
		r := s.Do("GET", "/v1/vaults/"+vault+"/secrets/"+p, me.Token, nil)
		require.Equal(t, http.StatusInternalServerError, r.Status, p+": "+string(r.Body))
		require.Equal(t, "application/problem+json", r.Header.Get("Content-Type"))
		require.Equal(t, "integrity_error", r.JSON(t)["type"])
		require.NotContains(t, string(r.Body), "e2e-value")
	}
}

// execSQL runs SQL against the stack's database, as an attacker with storage
// access would.
func execSQL(t *testing.T, s *stack.Stack, sql string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.DatabaseURL)
	require.NoError(t, err)
	defer conn.Close(ctx)
	tag, err := conn.Exec(ctx, sql)
	require.NoError(t, err)
	require.NotZero(t, tag.RowsAffected(), sql)
}
