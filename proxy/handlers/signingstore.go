package handlers

import (
	"context"
	"math/big"
	"time"

	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/chainrpc"
)

// SigningKeyStore is the storage of the Intents API's keys: signing keys,
// their guardrail sets and the token registry they sign against.
type SigningKeyStore interface {
	ActiveSigningKey(ctx context.Context, orgID, agentID, chain string) (store.SigningKey, error)
	ListSigningKeys(ctx context.Context, orgID, agentID string) ([]store.SigningKey, error)
	CountSigningKeys(ctx context.Context, orgID string) (int64, error)
	NextSigningKeyVersion(ctx context.Context, orgID, agentID, chain string) (int, error)
	AddSigningKey(ctx context.Context, k store.SigningKey, rotate bool, ev *auditchain.Event) (store.SigningKey, error)
	DeleteSigningKey(ctx context.Context, orgID, agentID, chain string, ev *auditchain.Event) (store.SigningKey, error)
	SigningPartyOf(ctx context.Context, orgID, agentID, chain string) (store.SigningParty, error)
	AgentGuardrailSource(ctx context.Context, orgID, agentID string) (store.GuardrailSource, error)
	StageGuardrailSet(ctx context.Context, orgID, agentID string, version int64, set []byte) error
	SetGuardrailMAC(ctx context.Context, orgID, agentID string, version int64, mac []byte) error
	KnownTokenOf(ctx context.Context, chain, address string) (store.KnownToken, error)
}

// TxStore is the storage of the Intents API's transactions: the records,
// the daily counters and the nonces reserved for them.
type TxStore interface {
	InsertAgentTx(ctx context.Context, t store.AgentTx, ev *auditchain.Event, event string, data any) (store.AgentTx, error)
	SetAgentTxStatus(ctx context.Context, orgID, id, status, errText, event string, data any) (store.AgentTx, error)
	GetAgentTx(ctx context.Context, orgID, agentID, id string) (store.AgentTx, error)
	ListAgentTxs(ctx context.Context, orgID, agentID, before string, limit int) ([]store.AgentTx, error)
	CountAgentTxsSince(ctx context.Context, orgID string, t time.Time) (int64, error)
	ReserveTx(ctx context.Context, orgID, agentID, chain string, day time.Time, value *big.Int, lim store.TxLimits) (store.TxCounters, string, error)
	ReleaseTx(ctx context.Context, orgID, agentID, chain string, day time.Time, value *big.Int) error
	AgentTxToday(ctx context.Context, orgID, agentID string, day time.Time) (int64, map[string]string, error)
	ReserveNonce(ctx context.Context, orgID string, chainID int64, address string, chainPending uint64) (uint64, error)
	ReleaseNonce(ctx context.Context, orgID string, chainID int64, address string, nonce uint64) error
}

// ChainDialer gives the RPC client of a chain's node (proxy/chainrpc.Pool).
type ChainDialer interface {
	Client(ctx context.Context, rpcURL string) (*chainrpc.Client, error)
}
