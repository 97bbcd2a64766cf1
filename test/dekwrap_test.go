package test

import (
	"context"
	"net/http"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

// TestKEKIntermediateKeySwapAcrossVaults: values are sealed in the current
// format (version 3, data key wrapped under the vault's intermediate key),
// and a database writer who moves another vault's wrapped data key, or
// another vault's whole sealed row, into a secret of this vault gets an
// integrity error over the wire, never the other vault's plaintext.
func TestKEKIntermediateKeySwapAcrossVaults(t *testing.T) {
	s := stack.Start(t)
	me := s.SignUp("dekwrap@example.com")
	va := s.CreateVault(me.Token, "va")
	vb := s.CreateVault(me.Token, "vb")
	for _, v := range []string{va, vb} {
		for _, p := range []string{"k", "whole"} {
			r := s.Do("PUT", "/v1/vaults/"+v+"/secrets/"+p, me.Token, map[string]any{"type": "password", "value": "e2e-value-" + v + p})
			require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
		}
	}
	var format int
	conn, err := pgx.Connect(context.Background(), s.DatabaseURL)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT get_byte(v.ciphertext, 0) FROM secret_versions v
		JOIN secrets s ON s.org_id = v.org_id AND s.id = v.secret_id WHERE s.vault_id = $1 AND s.path = 'k'`, va).Scan(&format))
	require.Equal(t, 3, format, "new values are sealed as version-3 blobs")

	// Vault a's "k" gets vault b's wrapped data key.
	execSQL(t, s, `UPDATE secret_versions v SET wrapped_dek = o.wrapped_dek
		FROM secrets s, secret_versions o JOIN secrets os ON os.org_id = o.org_id AND os.id = o.secret_id
		WHERE s.org_id = v.org_id AND s.id = v.secret_id AND s.vault_id = '`+va+`' AND s.path = 'k'
		AND os.vault_id = '`+vb+`' AND os.path = 'k'`)
	// Vault a's "whole" gets vault b's wrapped data key and ciphertext.
	execSQL(t, s, `UPDATE secret_versions v SET wrapped_dek = o.wrapped_dek, ciphertext = o.ciphertext
		FROM secrets s, secret_versions o JOIN secrets os ON os.org_id = o.org_id AND os.id = o.secret_id
		WHERE s.org_id = v.org_id AND s.id = v.secret_id AND s.vault_id = '`+va+`' AND s.path = 'whole'
		AND os.vault_id = '`+vb+`' AND os.path = 'whole'`)
	for _, p := range []string{"k", "whole"} {
		r := s.Do("GET", "/v1/vaults/"+va+"/secrets/"+p, me.Token, nil)
		require.Equal(t, http.StatusInternalServerError, r.Status, p+": "+string(r.Body))
		require.Equal(t, "integrity_error", r.JSON(t)["type"])
		require.NotContains(t, string(r.Body), "e2e-value")
	}
	// Vault b is untouched and still opens.
	r := s.Do("GET", "/v1/vaults/"+vb+"/secrets/k", me.Token, nil)
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	require.Contains(t, string(r.Body), "e2e-value-"+vb+"k")
}
