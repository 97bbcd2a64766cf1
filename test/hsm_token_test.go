package test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/keyvault"
	"github.com/opencustody/ocv/keyvault/pkcs11"
	"github.com/opencustody/ocv/test/stack"
)

// hsmToken signs claims with the enclave's newest token key straight
// through the stack's SoftHSM token, as only a holder of the HSM PIN can:
// no wire operation signs claims the caller chose. Tests use it for tokens
// the proxy would never be given (a ten-year lifetime, a forged owner).
func hsmToken(t *testing.T, s *stack.Stack, claims map[string]any) string {
	t.Helper()
	ctx := context.Background()
	hsm := filepath.Join(s.Dir, "softhsm")
	t.Setenv("SOFTHSM2_CONF", filepath.Join(hsm, "softhsm2.conf"))
	pin, err := os.ReadFile(filepath.Join(hsm, "pin"))
	require.NoError(t, err)
	ks, err := pkcs11.New(ctx, pkcs11.Config{ModulePath: "/usr/lib/softhsm/libsofthsm2.so", TokenLabel: "ocv",
		PIN: strings.TrimSpace(string(pin)), PoolSize: 1})
	require.NoError(t, err)
	defer ks.Close()
	versions, err := ks.Versions(ctx, "jwt")
	require.NoError(t, err)
	require.NotEmpty(t, versions)
	v := versions[len(versions)-1]
	signer, err := ks.Signer(ctx, keyvault.KeyRef{ID: "jwt", Version: v})
	require.NoError(t, err)
	hdr, err := json.Marshal(struct {
		Alg string `json:"alg"`
		Typ string `json:"typ"`
		Kid string `json:"kid"`
	}{"ES256", "JWT", "ocv-jwt-v" + big.NewInt(int64(v)).String()})
	require.NoError(t, err)
	payload, err := json.Marshal(claims)
	require.NoError(t, err)
	enc := base64.RawURLEncoding
	input := enc.EncodeToString(hdr) + "." + enc.EncodeToString(payload)
	digest := sha256.Sum256([]byte(input))
	raw, err := signer.SignDigest(ctx, digest[:])
	require.NoError(t, err)
	require.Len(t, raw, 64)
	// Low S, as the enclave hands signatures out.
	n := elliptic.P256().Params().N
	sv := new(big.Int).SetBytes(raw[32:])
	if sv.Cmp(new(big.Int).Rsh(n, 1)) > 0 {
		sv.Sub(n, sv)
	}
	sig := make([]byte, 64)
	copy(sig[:32], raw[:32])
	sv.FillBytes(sig[32:])
	pub, ok := signer.Public().(*ecdsa.PublicKey)
	require.True(t, ok)
	require.True(t, ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(sig[:32]), sv))
	return input + "." + enc.EncodeToString(sig)
}

func hexOf(b []byte) string { return hex.EncodeToString(b) }

// sealMembership has the enclave seal userID's membership of orgID with
// role, as an owner of orgID would (its token signed through the HSM), and
// stores it where the proxy keeps sealed records: the test's stand-in for
// the invitation flow, which is not complete yet.
func sealMembership(t *testing.T, s *stack.Stack, orgID, userID, role string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.DatabaseURL)
	require.NoError(t, err)
	defer conn.Close(ctx)
	owner := userID
	_ = conn.QueryRow(ctx, `SELECT user_id FROM org_members WHERE org_id = $1 AND role = 'owner' LIMIT 1`, orgID).Scan(&owner)
	now := time.Now()
	tok := hsmToken(t, s, map[string]any{"iss": s.BaseURL, "sub": owner, "aud": "ocv", "iat": now.Unix(),
		"exp": now.Add(5 * time.Minute).Unix(), "iat_ms": now.UnixMilli(), "jti": "seal-" + hexOf([]byte(userID+role)),
		"org_id": orgID, "principal_type": "user", "role": "owner"})
	name := "id/member/" + orgID + "/" + userID
	rec := wire.IdentityRecord{Kind: wire.IdentityMember, Version: 1, OrgID: orgID, UserID: userID, Role: role, Status: wire.StatusActive}
	var cur []byte
	if err := conn.QueryRow(ctx, `SELECT record FROM sealed_identity WHERE name = $1`, name).Scan(&cur); err == nil {
		var old wire.IdentityRecord
		require.NoError(t, old.Decode(cur))
		rec.Version = old.Version + 1
	}
	b, err := rec.Append(nil)
	require.NoError(t, err)
	var resp wire.SealIdentityResponse
	require.Equal(t, wire.OK, callWire(t, enclaveSession(t, s), wire.OpSealIdentity,
		&wire.SealIdentityRequest{Token: tok, Records: [][]byte{b}}, &resp))
	_, err = conn.Exec(ctx, `INSERT INTO sealed_identity (name, record, mac) VALUES ($1, $2, $3)
		ON CONFLICT (name) DO UPDATE SET record = excluded.record, mac = excluded.mac`, name, b, resp.MACs[0])
	require.NoError(t, err)
}

// sealPlatformRole has the enclave seal userID's record with a platform
// role (only that field may change this way), as the proxy does for its
// bootstrap administrator, and stores it where the proxy keeps it.
func sealPlatformRole(t *testing.T, s *stack.Stack, userID, role string) {
	t.Helper()
	name := "id/user/" + userID
	cur := sealedIdentity(t, s, name)
	var rec wire.IdentityRecord
	require.NoError(t, rec.Decode(cur.Record))
	rec.Version++
	rec.Role = role
	b, err := rec.Append(nil)
	require.NoError(t, err)
	var resp wire.SealIdentityResponse
	require.Equal(t, wire.OK, callWire(t, enclaveSession(t, s), wire.OpSealIdentity,
		&wire.SealIdentityRequest{Current: []wire.SealedIdentity{cur}, Records: [][]byte{b}}, &resp))
	execSQL(t, s, "UPDATE sealed_identity SET record = '\\x"+hexOf(b)+"', mac = '\\x"+hexOf(resp.MACs[0])+"' WHERE name = '"+name+"'")
}
