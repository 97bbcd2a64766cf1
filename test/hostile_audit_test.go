package test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/client"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/test/stack"
)

// extendHead sends OpExtendAuditHead on a raw session, as a compromised
// proxy could, and returns the code and the decoded answer.
func extendHead(t *testing.T, sess *client.Session, req wire.ExtendAuditHeadRequest) (wire.Code, wire.ExtendAuditHeadResponse) {
	t.Helper()
	body, err := req.Append(nil)
	require.NoError(t, err)
	code, out, err := sess.Call(wire.OpExtendAuditHead, body)
	require.NoError(t, err)
	var resp wire.ExtendAuditHeadResponse
	if code == wire.OK {
		require.NoError(t, resp.Decode(out))
	}
	return code, resp
}

// lastSignedHead reads the newest head the proxy stored for orgID (the
// genesis, seq 0, when there is none).
func lastSignedHead(t *testing.T, s *stack.Stack, orgID string) (seq int64, hash [32]byte) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.DatabaseURL)
	require.NoError(t, err)
	defer conn.Close(ctx)
	var h []byte
	err = conn.QueryRow(ctx, `SELECT chain_seq, hash FROM audit_heads WHERE org_id = $1
		ORDER BY chain_seq DESC LIMIT 1`, orgID).Scan(&seq, &h)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, [32]byte{}
	}
	require.NoError(t, err)
	copy(hash[:], h)
	return seq, hash
}

func randomDigests(n int) [][32]byte {
	out := make([][32]byte, n)
	for i := range out {
		_, _ = rand.Read(out[i][:])
	}
	return out
}

// TestHostileProxyAuditHeadNotExtendingRefused: the enclave signs a head
// only when the chain it computes passes through the last head it signed
// for the organization. A rewritten past, a sequence number that does not
// exist and a forked hash are refused; the genuine extension is signed.
func TestHostileProxyAuditHeadNotExtendingRefused(t *testing.T) {
	s := stack.Start(t)
	me := s.SignUp("hostile-audit@example.com")
	s.CreateVault(me.Token, "v")
	head := waitSignedHead(t, s, me.OrgID)
	seq, hash := lastSignedHead(t, s, me.OrgID)
	require.Equal(t, head, seq)
	sess := enclaveSession(t, s)

	refused := map[string]wire.ExtendAuditHeadRequest{
		"a chain rewritten from genesis": {OrgID: me.OrgID, Digests: randomDigests(int(seq) + 2)},
		"a rewritten past from an earlier head": {OrgID: me.OrgID, PrevSeq: uint64(seq - 1), PrevHash: sha256.Sum256([]byte("x")),
			Digests: randomDigests(3)},
		"a sequence number that does not exist": {OrgID: me.OrgID, PrevSeq: uint64(seq + 100), PrevHash: hash,
			Digests: randomDigests(1)},
		"a fork at the last head's seq": {OrgID: me.OrgID, PrevSeq: uint64(seq), PrevHash: sha256.Sum256([]byte("fork")),
			Digests: randomDigests(1)},
	}
	for name, req := range refused {
		code, _ := extendHead(t, sess, req)
		require.Equal(t, wire.Conflict, code, name)
	}

	// From the real last head, the enclave computes the chain itself.
	d := randomDigests(2)
	code, resp := extendHead(t, sess, wire.ExtendAuditHeadRequest{OrgID: me.OrgID, PrevSeq: uint64(seq), PrevHash: hash,
		LastEventID: 1, Digests: d})
	require.Equal(t, wire.OK, code)
	l1 := auditchain.Link(hash[:], d[0])
	require.Equal(t, auditchain.Link(l1[:], d[1]), resp.Hash)
	require.Equal(t, uint64(seq+2), resp.Seq)
	// That head is now the floor: the old one no longer extends.
	code, _ = extendHead(t, sess, wire.ExtendAuditHeadRequest{OrgID: me.OrgID, PrevSeq: uint64(seq), PrevHash: hash,
		Digests: randomDigests(1)})
	require.Equal(t, wire.Conflict, code)
}

// TestHostileProxyAuditTruncationDetected: an attacker with database
// access deletes the newest audit events and their signed heads. The
// database alone still verifies; against the external heads the proxy
// wrote outside PostgreSQL it fails, and the enclave refuses to sign a
// head on the truncated chain.
func TestHostileProxyAuditTruncationDetected(t *testing.T) {
	s := stack.Start(t)
	me := s.SignUp("truncate@example.com")
	vault := s.CreateVault(me.Token, "v")
	for range 4 {
		r := s.Do("PUT", "/v1/vaults/"+vault+"/secrets/k", me.Token, map[string]any{"type": "api_key", "value": "e2e-trunc"})
		require.Less(t, r.Status, 300, string(r.Body))
		require.Equal(t, http.StatusOK, s.Do("GET", "/v1/vaults/"+vault+"/secrets/k", me.Token, nil).Status)
	}
	head := waitSignedHead(t, s, me.OrgID)
	require.GreaterOrEqual(t, head, int64(8))

	jwks := filepath.Join(t.TempDir(), "jwks.json")
	require.NoError(t, os.WriteFile(jwks, s.Do("GET", "/.well-known/jwks.json", "", nil).Body, 0o600))
	headsDir := filepath.Join(s.Dir, "audit-heads")
	verify := func(withHeads bool) (string, error) {
		args := []string{"audit", "verify", "--database-url", s.DatabaseURL, "--org", me.OrgID, "--jwks", jwks}
		if withHeads {
			args = append(args, "--heads", headsDir)
		}
		return runOCV(t, args...)
	}
	out, err := verify(true)
	require.NoError(t, err, out)
	require.Contains(t, out, fmt.Sprintf("ok   org %s: %d events chained", me.OrgID, head))

	cut := strconv.FormatInt(head-3, 10)
	execSQL(t, s, `DELETE FROM audit_events WHERE org_id = '`+me.OrgID+`' AND chain_seq > `+cut)
	execSQL(t, s, `DELETE FROM audit_heads WHERE org_id = '`+me.OrgID+`' AND chain_seq > `+cut)

	out, err = verify(false)
	require.NoError(t, err, "the database alone cannot tell: "+out)

	out, err = verify(true)
	require.Error(t, err, out)
	require.Contains(t, out, "FAIL audit chain of org "+me.OrgID+" broken at seq "+strconv.FormatInt(head, 10))
	require.Contains(t, out, "chain ends at "+cut)

	// The truncated chain cannot get a head signed over it: its end is
	// behind the enclave's floor.
	seq, hash := lastSignedHead(t, s, me.OrgID)
	require.LessOrEqual(t, seq, head-3)
	code, _ := extendHead(t, enclaveSession(t, s), wire.ExtendAuditHeadRequest{OrgID: me.OrgID, PrevSeq: uint64(seq),
		PrevHash: hash, Digests: randomDigests(int(head-3-seq) + 1)})
	require.Equal(t, wire.Conflict, code, "the last head was %d, cut at %s; hash %s", seq, cut, hex.EncodeToString(hash[:]))
}
