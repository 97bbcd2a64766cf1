package intents

import (
	"context"
	"math/big"
	"time"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/chainrpc"
)

// KeyStore is the storage of agents' signing keys, their guardrail sets
// and the token registry they sign against. Implementations are safe for
// concurrent use, honour ctx and return errors matching store.ErrNotFound
// for a missing key, agent or token.
type KeyStore interface {
	ActiveSigningKey(ctx context.Context, orgID, agentID, chain string) (store.SigningKey, error)
	NextSigningKeyVersion(ctx context.Context, orgID, agentID, chain string) (int, error)
	AddSigningKey(ctx context.Context, k store.SigningKey, rotate bool, ev *auditchain.Event) (store.SigningKey, error)
	AgentGuardrailSource(ctx context.Context, orgID, agentID string) (store.GuardrailSource, error)
	StageGuardrailSet(ctx context.Context, orgID, agentID string, version int64, set []byte) error
	SetGuardrailMAC(ctx context.Context, orgID, agentID string, version int64, mac []byte) error
	KnownTokenOf(ctx context.Context, chain, address string) (store.KnownToken, error)
}

// TxStore is the storage of the agents' transactions, their daily
// counters and the nonces reserved for them. Implementations are safe for
// concurrent use and honour ctx.
type TxStore interface {
	InsertAgentTx(ctx context.Context, t store.AgentTx, ev *auditchain.Event, event string, data any) (store.AgentTx, error)
	SetAgentTxStatus(ctx context.Context, orgID, id, status, errText, event string, data any) (store.AgentTx, error)
	ReserveTxFee(ctx context.Context, orgID, agentID, chain string, day time.Time, value, fee *big.Int, lim store.TxLimits) (store.TxCounters, string, error)
	ReleaseTxFee(ctx context.Context, orgID, agentID, chain string, day time.Time, value, fee *big.Int) error
	ReserveNonce(ctx context.Context, orgID string, chainID int64, address string, chainPending uint64) (uint64, error)
	ReleaseNonce(ctx context.Context, orgID string, chainID int64, address string, nonce uint64) error
	// CheckpointIdempotent and ForgetIdempotent: see store (exactly once).
	CheckpointIdempotent(ctx context.Context, resp store.IdempotentResponse) error
	ForgetIdempotent(ctx context.Context) error
}

// ChainResolver reads the chain registry: a chain by name, alias or EVM
// chain id (an error matching store.ErrNotFound when unknown).
type ChainResolver interface {
	ResolveChain(ctx context.Context, ref string) (store.Chain, error)
}

// Enclave is what the service asks of the enclave: keys, signatures and
// the sealing of guardrail sets. Errors are the wire sentinels.
type Enclave interface {
	SigningKey(ctx context.Context, req wire.SigningKeyRequest) (wire.SigningKeyResponse, error)
	SignIntent(ctx context.Context, req wire.SignIntentRequest) (wire.SignIntentResponse, error)
	SealGuardrails(ctx context.Context, req wire.SealGuardrailsRequest) ([]byte, error)
	DestroySigningKey(ctx context.Context, req wire.DestroySigningKeyRequest) (uint32, error)
}

// ChainDialer gives the RPC client of a chain's node (proxy/chainrpc.Pool).
type ChainDialer interface {
	Client(ctx context.Context, rpcURL string) (*chainrpc.Client, error)
}

// Config are the service's dependencies.
type Config struct {
	Keys    KeyStore
	Txs     TxStore
	Chains  ChainResolver
	Enclave Enclave
	// Dialer dials chains' RPC nodes; nil answers 503 chain_unavailable
	// where a node is needed.
	Dialer ChainDialer
	// Now is the clock of the daily guardrail windows (the database's,
	// store.Clock.Now); nil is time.Now.
	Now func() time.Time
}

// Service is the Intents API's logic; it is safe for concurrent use.
type Service struct {
	keys    KeyStore
	txs     TxStore
	chains  ChainResolver
	enclave Enclave
	dialer  ChainDialer
	cache   chainCache
	now     func() time.Time
}

// New returns the service over c.
func New(c Config) *Service {
	now := c.Now
	if now == nil {
		now = time.Now
	}
	return &Service{keys: c.Keys, txs: c.Txs, chains: c.Chains, enclave: c.Enclave, dialer: c.Dialer, now: now}
}
