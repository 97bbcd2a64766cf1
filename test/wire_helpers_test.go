package test

import (
	"context"
	"crypto/x509"
	"encoding/hex"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/attestation/nitro"
	"github.com/opencustody/ocv/attestation/sim"
	"github.com/opencustody/ocv/enclave/client"
	"github.com/opencustody/ocv/test/stack"
)

// enclaveSession opens an attested session to the stack's enclave the way
// a proxy does, for tests that speak the wire protocol directly as a
// compromised proxy host could: it proves the stack's proxy identity (the
// attacker of issue 11 holds the proxy host and so its identity key). It
// is closed when the test ends.
func enclaveSession(t *testing.T, s *stack.Stack) *client.Session {
	t.Helper()
	return enclaveSessionAt(t, s, s.EnclaveAddr)
}

// enclaveSessionAt is enclaveSession to the enclave at addr: the stack's
// own, or a second one on the same HSM token (stack.StartSecondEnclave).
func enclaveSessionAt(t *testing.T, s *stack.Stack, addr string) *client.Session {
	t.Helper()
	sess, err := dialEnclaveAt(t, s, addr, client.WithIdentity(s.ProxyIdentity))
	require.NoError(t, err)
	return sess
}

// enclaveSessionWithoutIdentity opens an attested session that proves no
// proxy identity, as any other process reaching the enclave's socket
// would; WithIdentity(another key) in opts makes it prove a key the
// enclave does not know. The handshake's error is returned, not checked
// (an unknown key's proof is refused during DialSession).
func enclaveSessionWithoutIdentity(t *testing.T, s *stack.Stack, opts ...client.SessionOption) (*client.Session, error) {
	t.Helper()
	return dialEnclaveAt(t, s, s.EnclaveAddr, opts...)
}

// dialEnclaveAt validates the enclave at addr as a proxy does and dials it.
func dialEnclaveAt(t *testing.T, s *stack.Stack, addr string, opts ...client.SessionOption) (*client.Session, error) {
	t.Helper()
	root, err := sim.LoadRoot(s.RootPath)
	require.NoError(t, err)
	pcr0, _ := hex.DecodeString(s.PCR0)
	v, err := nitro.NewValidator(nitro.Config{Roots: []*x509.Certificate{root}, SimulatedRoots: true, AllowedPCRs: map[uint][][]byte{0: {pcr0}}})
	require.NoError(t, err)
	sess, err := client.DialSession(stack.Context(t), addr, v, opts...)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = sess.Close() })
	return sess, nil
}

// sealedRow is what a proxy holds of a secret's current version: the
// sealed value as PostgreSQL stores it.
type sealedRow struct {
	version     uint32
	wrapped, ct []byte
}

// readSealed reads the current sealed version of the secret at path in
// orgID's vaults straight from the database.
func readSealed(t *testing.T, s *stack.Stack, orgID, path string) sealedRow {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.DatabaseURL)
	require.NoError(t, err)
	defer conn.Close(ctx)
	var row sealedRow
	require.NoError(t, conn.QueryRow(ctx, `SELECT s.version, v.wrapped_dek, v.ciphertext FROM secrets s
		JOIN secret_versions v ON v.org_id = s.org_id AND v.secret_id = s.id AND v.version = s.version
		WHERE s.org_id = $1 AND s.path = $2`, orgID, path).Scan(&row.version, &row.wrapped, &row.ct))
	return row
}
