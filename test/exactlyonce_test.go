package test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

// Issue 13, item 1: exactly once. The test-only crash hooks
// (OCV_TEST_CRASH_BEFORE_COMMIT, OCV_TEST_CRASH_AFTER_COMMIT, honoured only
// in -tags ocvtest builds) make the proxy SIGKILL itself in an idempotent
// request, before or right after its transaction commits and before it
// answers.

const putSecretRoute = "PUT /v1/vaults/{vault_id}/secrets/{path...}"

// countSQL runs a count query on the stack's database.
func countSQL(t *testing.T, s *stack.Stack, sql string, args ...any) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.DatabaseURL)
	require.NoError(t, err)
	defer conn.Close(ctx)
	var n int
	require.NoError(t, conn.QueryRow(ctx, sql, args...).Scan(&n))
	return n
}

// crashingRequest sends a request that the crash hook ends: the client gets
// no answer and the proxy exits on its own.
func crashingRequest(t *testing.T, s *stack.Stack, method, path, token string, body any, h http.Header) {
	t.Helper()
	r, err := s.TryHeaders(method, path, token, body, h)
	require.Error(t, err, "the proxy must die before answering (got %d %s)", r.Status, r.Body)
	require.True(t, s.WaitProxyExit(15*time.Second), "the crash hook killed the proxy")
}

func TestExactlyOnceSecretWrite(t *testing.T) {
	s := stack.Start(t, stack.WithProxyEnv("OCV_TEST_CRASH_BEFORE_COMMIT="+putSecretRoute))
	me := s.SignUp("exactly-once@example.com")
	vault := s.CreateVault(me.Token, "exactly-once") // a POST: no hook
	path := "/v1/vaults/" + vault + "/secrets/payments/api"
	body := map[string]any{"type": "password", "value": "v1"}
	key := http.Header{"Idempotency-Key": {"put-exactly-once"}}
	versions := func() int {
		return countSQL(t, s, `SELECT count(*) FROM secret_versions v JOIN secrets s ON s.id = v.secret_id
			WHERE s.org_id = $1 AND s.path = 'payments/api'`, me.OrgID)
	}
	writes := func() int {
		return countSQL(t, s, `SELECT count(*) FROM audit_events WHERE org_id = $1 AND action = 'secret.write'`, me.OrgID)
	}

	// A crash after the handler ran and before the commit leaves nothing.
	crashingRequest(t, s, "PUT", path, me.Token, body, key)
	require.Zero(t, versions(), "nothing committed before the crash")
	require.Zero(t, writes())

	// The retry runs the request once, normally; this proxy dies right
	// after its commit, before answering.
	s.StartProxyEnv("OCV_TEST_CRASH_BEFORE_COMMIT=", "OCV_TEST_CRASH_AFTER_COMMIT="+putSecretRoute)
	crashingRequest(t, s, "PUT", path, me.Token, body, key)
	require.Equal(t, 1, versions(), "the effect committed")
	require.Equal(t, 1, writes(), "its audit event committed with it")

	// After the commit, the retry replays the stored answer and never
	// runs the write again.
	s.StartProxyEnv("OCV_TEST_CRASH_AFTER_COMMIT=")
	for range 2 {
		r := s.DoHeaders("PUT", path, me.Token, body, key)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.Equal(t, "true", r.Header.Get("Idempotent-Replayed"))
		require.EqualValues(t, 1, r.JSON(t)["version"])
	}
	require.Equal(t, 1, versions(), "exactly one version")
	got := s.Do("GET", path, me.Token, nil)
	require.Equal(t, http.StatusOK, got.Status, string(got.Body))
	require.Equal(t, "v1", got.JSON(t)["value"])

	// A different request with the used key is refused; a new key writes.
	r := s.DoHeaders("PUT", path, me.Token, map[string]any{"type": "password", "value": "v2"}, key)
	requireProblem(t, r, http.StatusUnprocessableEntity, "idempotency_mismatch")
	r = s.DoHeaders("PUT", path, me.Token, map[string]any{"type": "password", "value": "v2"},
		http.Header{"Idempotency-Key": {"put-exactly-once-2"}})
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	require.EqualValues(t, 2, r.JSON(t)["version"])
}

func TestExactlyOnceBroadcast(t *testing.T) {
	e := newIntentsEnv(t, nil)
	ctx := context.Background()
	e.net.Fund(t, e.address, ether(10))
	recipient := common.HexToAddress("0x00000000000000000000000000000000000000e1")
	nonceBefore, err := e.eth.PendingNonceAt(ctx, e.address)
	require.NoError(t, err)

	// The proxy dies right after the signed transaction, its raw bytes and
	// hash committed with the key's answer: before the broadcast.
	e.s.KillProxy()
	e.s.StartProxyEnv("OCV_TEST_CRASH_AFTER_COMMIT=POST /v1/agents/{id}/transactions")
	body := map[string]any{"chain_id": "devnet", "to": recipient.Hex(), "value": "0x3"}
	key := http.Header{"Idempotency-Key": {"pay-exactly-once"}}
	crashingRequest(t, e.s, "POST", e.path("/transactions"), e.agent, body, key)
	txs := func() int {
		return countSQL(t, e.s, `SELECT count(*) FROM agent_transactions WHERE agent_id = $1`, e.agentID)
	}
	require.Equal(t, 1, txs(), "the signed transaction committed before the broadcast")

	// The retry replays the committed answer: the same transaction, never
	// signed again; the watcher sends the same raw bytes.
	e.s.StartProxyEnv("OCV_TEST_CRASH_AFTER_COMMIT=")
	var hash string
	for range 2 {
		r := e.s.DoHeaders("POST", e.path("/transactions"), e.agent, body, key)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.Equal(t, "true", r.Header.Get("Idempotent-Replayed"))
		tx := r.JSON(t)
		require.EqualValues(t, nonceBefore, tx["nonce"])
		if hash == "" {
			hash = tx["tx_hash"].(string)
		}
		require.Equal(t, hash, tx["tx_hash"])
	}
	rec := e.net.WaitReceipt(t, common.HexToHash(hash))
	require.Equal(t, types.ReceiptStatusSuccessful, rec.Status)
	require.Equal(t, 1, txs(), "exactly one transaction")
	nonceAfter, err := e.eth.PendingNonceAt(ctx, e.address)
	require.NoError(t, err)
	require.Equal(t, nonceBefore+1, nonceAfter, "one nonce used")
	require.EqualValues(t, 3, e.balance(t, recipient).Int64(), "paid once")
}
