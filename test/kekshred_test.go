package test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/miekg/pkcs11"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/client"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/test/stack"
)

// destroyKEKInHSM destroys the token object of a vault's KEK version
// straight through PKCS#11, from this test process, as an HSM operator (or
// a lost token) would: no OCV code runs and no enclave is told.
func destroyKEKInHSM(t *testing.T, s *stack.Stack, orgID, vaultID string, version uint32) {
	t.Helper()
	hsm := filepath.Join(s.Dir, "softhsm")
	t.Setenv("SOFTHSM2_CONF", filepath.Join(hsm, "softhsm2.conf"))
	pin, err := os.ReadFile(filepath.Join(hsm, "pin"))
	require.NoError(t, err)
	p := pkcs11.New("/usr/lib/softhsm/libsofthsm2.so")
	require.NotNil(t, p, "loading the SoftHSM2 module")
	err = p.Initialize()
	var rv pkcs11.Error
	if errors.As(err, &rv) && rv == pkcs11.CKR_CRYPTOKI_ALREADY_INITIALIZED {
		err = nil // another helper of this process holds the module
	} else if err == nil {
		defer func() { _ = p.Finalize() }()
	}
	require.NoError(t, err)
	slots, err := p.GetSlotList(true)
	require.NoError(t, err)
	var slot uint
	found := false
	for _, sl := range slots {
		ti, err := p.GetTokenInfo(sl)
		require.NoError(t, err)
		if ti.Label == "ocv" {
			slot, found = sl, true
		}
	}
	require.True(t, found, "the stack's token")
	sh, err := p.OpenSession(slot, pkcs11.CKF_SERIAL_SESSION|pkcs11.CKF_RW_SESSION)
	require.NoError(t, err)
	defer func() { _ = p.CloseSession(sh) }()
	if err := p.Login(sh, pkcs11.CKU_USER, strings.TrimSpace(string(pin))); err != nil {
		require.ErrorIs(t, err, pkcs11.Error(pkcs11.CKR_USER_ALREADY_LOGGED_IN))
	}
	id := "ocv:kek/" + orgID + "/" + vaultID + ":v" + strconv.FormatUint(uint64(version), 10)
	require.NoError(t, p.FindObjectsInit(sh, []*pkcs11.Attribute{pkcs11.NewAttribute(pkcs11.CKA_ID, id)}))
	hs, _, err := p.FindObjects(sh, 8)
	require.NoError(t, err)
	require.NoError(t, p.FindObjectsFinal(sh))
	require.Len(t, hs, 1, "one key object %s", id)
	require.NoError(t, p.DestroyObject(sh, hs[0]))
}

// TestKEKShredImmediate: once a vault's KEK is destroyed in the HSM behind
// every enclave's back, the very next read of a secret it sealed answers
// 410 kek_destroyed naming the vault and KEK version: through the proxy's
// enclave (whose DEK cache held the value's key), through a second enclave
// on the same token (likewise warmed up), and after an enclave restart (the
// key lost, not integrity_error). No sleep, no retry.
func TestKEKShredImmediate(t *testing.T) {
	s := stack.Start(t)
	s.WaitAttested()
	owner := s.SignUp("kekshred@example.com")
	vault := s.CreateVault(owner.Token, "shred")
	secretURL := "/v1/vaults/" + vault + "/secrets/db/pw"
	r := s.Do("PUT", secretURL, owner.Token, map[string]any{"type": "password", "value": "e2e-shred-canary"})
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))

	// Reads fill the DEK caches of both enclaves.
	r = s.Do("GET", secretURL, owner.Token, nil)
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	require.Equal(t, "e2e-shred-canary", r.JSON(t)["value"])
	second := enclaveSessionAt(t, s, s.StartSecondEnclave())
	open := func(sess *client.Session) (wire.Code, string) {
		row := readSealed(t, s, owner.OrgID, "db/pw")
		body, err := (&wire.OpenRequest{OrgID: owner.OrgID, VaultID: vault, Path: "db/pw", SecretVersion: row.version,
			WrappedDEK: row.wrapped, Ciphertext: row.ct, Token: owner.Token, ClientIP: "127.0.0.1"}).Append(nil)
		require.NoError(t, err)
		code, resp, err := sess.Call(wire.OpOpen, body)
		require.NoError(t, err)
		if code != wire.OK {
			require.NotContains(t, string(resp), "e2e-shred")
			return code, ""
		}
		var out wire.OpenResponse
		require.NoError(t, out.Decode(resp))
		return code, string(out.Plaintext)
	}
	for range 2 {
		code, pt := open(second)
		require.Equal(t, wire.OK, code)
		require.Equal(t, "e2e-shred-canary", pt)
	}

	destroyKEKInHSM(t, s, owner.OrgID, vault, 1)

	// writeRefused: a write to the caller's own vault whose KEK is gone is
	// 410 kek_destroyed (it may know that the vault exists, and learns that
	// its key is gone), for a new secret and a new version alike, and
	// stores nothing.
	writeRefused := func(t *testing.T) {
		t.Helper()
		for _, path := range []string{"db/other", "db/pw"} {
			r := s.Do("PUT", "/v1/vaults/"+vault+"/secrets/"+path, owner.Token, map[string]any{"type": "password", "value": "x"})
			require.Equal(t, http.StatusGone, r.Status, string(r.Body))
			p := r.JSON(t)
			require.Equal(t, "kek_destroyed", p["type"])
			require.Contains(t, p["detail"], vault)
		}
		require.Equal(t, 1, countSecretRows(t, s, owner.OrgID), "no secret row or version was written")
		require.EqualValues(t, 1, readSealed(t, s, owner.OrgID, "db/pw").version)
	}
	shredded := func(t *testing.T) {
		t.Helper()
		r := s.Do("GET", secretURL, owner.Token, nil)
		require.Equal(t, http.StatusGone, r.Status, string(r.Body))
		require.NotContains(t, string(r.Body), "e2e-shred")
		p := r.JSON(t)
		require.Equal(t, "kek_destroyed", p["type"])
		detail, _ := p["detail"].(string)
		require.Contains(t, detail, vault)
		require.Contains(t, detail, "version 1")
	}
	// First, while the enclave still remembers the vault's latest KEK
	// version from the first write.
	t.Run("a write at once is refused, nothing is sealed", writeRefused)
	t.Run("at once through the proxy's enclave", shredded)
	t.Run("at once on a second enclave", func(t *testing.T) {
		code, _ := open(second)
		require.Equal(t, wire.KEKDestroyed, code)
	})
	t.Run("after an enclave restart", func(t *testing.T) {
		s.KillEnclave()
		s.StartEnclave()
		s.WaitAttested()
		shredded(t)
		code, _ := open(enclaveSession(t, s))
		require.Equal(t, wire.KEKDestroyed, code)
	})
	t.Run("a write after the restart is refused, nothing is sealed", writeRefused)
	t.Run("another organization still gets the 404 of a vault that exists nowhere", func(t *testing.T) {
		other := s.SignUp("kekshred-other@example.com")
		body := map[string]any{"type": "password", "value": "probe"}
		a := s.Do("PUT", "/v1/vaults/"+vault+"/secrets/db/other", other.Token, body)
		b := s.Do("PUT", "/v1/vaults/"+uuid.NewString()+"/secrets/db/other", other.Token, body)
		require.Equal(t, http.StatusNotFound, a.Status, string(a.Body))
		require.Equal(t, http.StatusNotFound, b.Status, string(b.Body))
		require.Equal(t, a.JSON(t)["type"], b.JSON(t)["type"])
		require.Equal(t, a.JSON(t)["detail"], b.JSON(t)["detail"])
	})
}

// countSecretRows counts the secrets and secret versions stored for orgID.
func countSecretRows(t *testing.T, s *stack.Stack, orgID string) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.DatabaseURL)
	require.NoError(t, err)
	defer conn.Close(ctx)
	var secrets, versions int
	require.NoError(t, conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM secrets WHERE org_id = $1),
		(SELECT count(*) FROM secret_versions WHERE org_id = $1)`, orgID).Scan(&secrets, &versions))
	require.Equal(t, secrets, versions, "one version per secret here")
	return secrets
}
