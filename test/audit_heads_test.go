package test

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

// chainState is what the database says about one organization's chain.
type chainState struct {
	unsealed int64 // events not chained yet
	lastSeq  int64 // the newest chained seq
	headSeq  int64 // the newest seq the enclave signed
}

func readChainState(t *testing.T, s *stack.Stack, orgID string) chainState {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.DatabaseURL)
	require.NoError(t, err)
	defer conn.Close(ctx)
	var st chainState
	require.NoError(t, conn.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM audit_events WHERE org_id = $1 AND chain_seq IS NULL),
		(SELECT coalesce(max(chain_seq), 0) FROM audit_events WHERE org_id = $1),
		(SELECT coalesce(max(chain_seq), 0) FROM audit_heads WHERE org_id = $1)`, orgID).
		Scan(&st.unsealed, &st.lastSeq, &st.headSeq))
	return st
}

// waitSignedHead polls the database (no request, so no new event) until
// every event of the organization is chained and the enclave signed a head
// at the chain's end, and returns that head's seq.
func waitSignedHead(t *testing.T, s *stack.Stack, orgID string) int64 {
	t.Helper()
	var st chainState
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		st = readChainState(t, s, orgID)
		if st.unsealed == 0 && st.lastSeq > 0 && st.headSeq == st.lastSeq {
			return st.headSeq
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("no signed head at the chain's end: %+v; logs:\n%s", st, s.Logs())
	return 0
}

func TestAuditDeletionDetectedAgainstSignedHead(t *testing.T) {
	s := stack.Start(t)
	me := s.SignUp("heads@example.com")
	vault := s.CreateVault(me.Token, "v")
	for range 4 {
		r := s.Do("PUT", "/v1/vaults/"+vault+"/secrets/k", me.Token, map[string]any{"type": "api_key", "value": "e2e-heads"})
		require.Less(t, r.Status, 300, string(r.Body))
		require.Equal(t, http.StatusOK, s.Do("GET", "/v1/vaults/"+vault+"/secrets/k", me.Token, nil).Status)
	}
	head := waitSignedHead(t, s, me.OrgID)
	require.GreaterOrEqual(t, head, int64(8), "the writes and reads are chained")

	verify := func() (string, error) {
		return runOCV(t, "audit", "verify", "--database-url", s.DatabaseURL, "--org", me.OrgID)
	}
	out, err := verify()
	require.NoError(t, err, out)
	require.Contains(t, out, "ok   org "+me.OrgID+": "+strconv.FormatInt(head, 10)+" events chained")

	// An attacker with database access deletes the newest three events.
	// The remaining chain still links up on its own; only the signed head
	// (seq above the new end) betrays the deletion.
	execSQL(t, s, `DELETE FROM audit_events WHERE org_id = '`+me.OrgID+`' AND chain_seq > `+strconv.FormatInt(head-3, 10))
	out, err = verify()
	require.Error(t, err, out)
	require.Contains(t, out, "FAIL audit chain of org "+me.OrgID+" broken at seq ")
	require.Contains(t, out, "chain ends at "+strconv.FormatInt(head-3, 10)+" (events or heads deleted)")
}
