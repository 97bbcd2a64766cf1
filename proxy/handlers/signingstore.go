package handlers

import (
	"context"
	"time"

	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/intents"
)

// SigningKeyStore is the storage of the Intents API's keys: what the
// intents service needs of it, and the listing, counting and deletion of
// keys and the signing party of an intent.
type SigningKeyStore interface {
	intents.KeyStore
	ListSigningKeys(ctx context.Context, orgID, agentID string) ([]store.SigningKey, error)
	CountSigningKeys(ctx context.Context, orgID string) (int64, error)
	DeleteSigningKey(ctx context.Context, orgID, agentID, chain string, ev *auditchain.Event) (store.SigningKey, error)
	SigningPartyOf(ctx context.Context, orgID, agentID, chain string) (store.SigningParty, error)
}

// TxStore is the storage of the Intents API's transactions: what the
// intents service needs of it, and the reading and counting of records.
type TxStore interface {
	intents.TxStore
	GetAgentTx(ctx context.Context, orgID, agentID, id string) (store.AgentTx, error)
	ListAgentTxs(ctx context.Context, orgID, agentID, before string, limit int) ([]store.AgentTx, error)
	CountAgentTxsSince(ctx context.Context, orgID string, t time.Time) (int64, error)
	AgentTxToday(ctx context.Context, orgID, agentID string, day time.Time) (int64, map[string]string, error)
}

// ChainDialer gives the RPC client of a chain's node (proxy/chainrpc.Pool).
type ChainDialer = intents.ChainDialer
