package txwatch

import (
	"context"
	"errors"
	"log/slog"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/chainrpc"
)

// Store is what the watcher reads and writes.
type Store interface {
	ClaimTxChecks(ctx context.Context, limit int, lease time.Duration) ([]store.WatchedTx, error)
	RescheduleTxCheck(ctx context.Context, orgID, id string, at time.Time) error
	SetAgentTxReceipt(ctx context.Context, orgID, id, status string, block, gasUsed int64) (store.AgentTx, error)
	SetAgentTxStatus(ctx context.Context, orgID, id, status, errText, event string, data any) (store.AgentTx, error)
	ReleaseTx(ctx context.Context, orgID, agentID, chain string, day time.Time, value *big.Int) error
	ReleaseNonce(ctx context.Context, orgID string, chainID int64, address string, nonce uint64) error
}

// Chains gives the RPC client of a node (chainrpc.Pool).
type Chains interface {
	Client(ctx context.Context, rpcURL string) (*chainrpc.Client, error)
}

// Config tunes a Watcher; zero values take the defaults.
type Config struct {
	Interval time.Duration // between passes (default 5 s)
	Batch    int           // transactions claimed per pass (default 50)
	Lease    time.Duration // how long a claim holds (default 1 min)
	MaxDelay time.Duration // the longest delay between two checks (default 5 min)
	// SignOnlyGrace is how long a sign-only transaction with a reserved
	// nonce may stay unsent before its nonce is given back (default 10 min).
	SignOnlyGrace time.Duration
}

func (c Config) withDefaults() Config {
	if c.Interval <= 0 {
		c.Interval = 5 * time.Second
	}
	if c.Batch <= 0 {
		c.Batch = 50
	}
	if c.Lease <= 0 {
		c.Lease = time.Minute
	}
	if c.MaxDelay <= 0 {
		c.MaxDelay = 5 * time.Minute
	}
	if c.SignOnlyGrace <= 0 {
		c.SignOnlyGrace = 10 * time.Minute
	}
	return c
}

// Watcher follows broadcast transactions.
type Watcher struct {
	store  Store
	chains Chains
	cfg    Config
	log    *slog.Logger
	now    func() time.Time
}

// New returns a Watcher.
func New(s Store, chains Chains, cfg Config, log *slog.Logger) *Watcher {
	return &Watcher{store: s, chains: chains, cfg: cfg.withDefaults(), log: log, now: time.Now}
}

// Run runs passes until ctx ends.
func (w *Watcher) Run(ctx context.Context) {
	t := time.NewTicker(w.cfg.Interval)
	defer t.Stop()
	for {
		if _, err := w.Pass(ctx); err != nil && ctx.Err() == nil {
			w.log.Warn("transaction watch pass failed", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Pass checks the transactions due now and reports how many it took.
func (w *Watcher) Pass(ctx context.Context) (int, error) {
	due, err := w.store.ClaimTxChecks(ctx, w.cfg.Batch, w.cfg.Lease)
	if err != nil {
		return 0, err
	}
	for _, t := range due {
		w.check(ctx, t)
	}
	return len(due), nil
}

// check looks at one transaction. Failures to reach the node or the store
// leave it claimed: it comes back when the lease ends.
func (w *Watcher) check(ctx context.Context, t store.WatchedTx) {
	if t.RPCURL == "" {
		_ = w.store.RescheduleTxCheck(ctx, t.OrgID, t.ID, w.later(t))
		return
	}
	cl, err := w.chains.Client(ctx, t.RPCURL)
	if err != nil {
		return
	}
	rec, err := cl.TransactionReceipt(ctx, common.HexToHash(t.TxHash))
	if err != nil {
		return
	}
	if rec != nil && rec.BlockNumber != nil {
		status := store.TxConfirmed
		if rec.Status != types.ReceiptStatusSuccessful {
			status = store.TxReverted
		}
		_, _ = w.store.SetAgentTxReceipt(ctx, t.OrgID, t.ID, status, rec.BlockNumber.Int64(), int64(rec.GasUsed))
		return
	}
	if t.SignOnly {
		w.checkSignOnly(ctx, cl, t)
		return
	}
	if t.Status == store.TxSigned {
		w.resend(ctx, cl, t)
		return
	}
	_ = w.store.RescheduleTxCheck(ctx, t.OrgID, t.ID, w.later(t))
}

// resend sends a transaction whose broadcast had an unknown outcome.
func (w *Watcher) resend(ctx context.Context, cl *chainrpc.Client, t store.WatchedTx) {
	_, err := cl.SendRawTransaction(ctx, t.SignedTx)
	switch {
	case err == nil:
		data := map[string]any{"transaction_id": t.ID, "agent_id": t.AgentID, "chain": t.Chain, "chain_id": t.ChainID,
			"tx_hash": t.TxHash, "from": t.From, "to": t.To, "value": t.Value, "nonce": t.Nonce}
		if _, err := w.store.SetAgentTxStatus(ctx, t.OrgID, t.ID, store.TxBroadcast, "", "agent.transaction.broadcast", data); err == nil {
			_ = w.store.RescheduleTxCheck(ctx, t.OrgID, t.ID, w.later(t))
		}
	case errors.Is(err, chainrpc.ErrNonceTooLow), errors.Is(err, chainrpc.ErrRejected):
		// Refused for good: nothing of it reached the chain. Its spend is
		// given back; its nonce too, unless another transaction used it.
		if _, err := w.store.SetAgentTxStatus(ctx, t.OrgID, t.ID, store.TxFailed, "broadcast rejected", "", nil); err != nil {
			return
		}
		value, ok := new(big.Int).SetString(t.Value, 10)
		if ok {
			_ = w.store.ReleaseTx(ctx, t.OrgID, t.AgentID, t.Chain, t.CreatedAt, value)
		}
		if !errors.Is(err, chainrpc.ErrNonceTooLow) {
			_ = w.store.ReleaseNonce(ctx, t.OrgID, t.ChainID, strings.ToLower(t.From), uint64(t.Nonce))
		}
		w.log.Info("transaction refused on resend", "transaction_id", t.ID)
	default:
		_ = w.store.RescheduleTxCheck(ctx, t.OrgID, t.ID, w.later(t))
	}
}

// checkSignOnly follows a sign-only transaction whose nonce the server
// reserved: the caller is to broadcast it. While the chain has not seen its
// nonce used (the pending nonce is not past it) it blocks every later
// transaction of the address; after the grace period its nonce is given
// back and it is marked abandoned.
func (w *Watcher) checkSignOnly(ctx context.Context, cl *chainrpc.Client, t store.WatchedTx) {
	pending, err := cl.PendingNonceAt(ctx, common.HexToAddress(t.From))
	if err != nil {
		return
	}
	now := w.now()
	switch {
	case pending > uint64(t.Nonce): // sent (pending or mined) by someone: wait for the receipt
		_ = w.store.RescheduleTxCheck(ctx, t.OrgID, t.ID, w.later(t))
	case now.Sub(t.CreatedAt) < w.cfg.SignOnlyGrace:
		_ = w.store.RescheduleTxCheck(ctx, t.OrgID, t.ID, t.CreatedAt.Add(w.cfg.SignOnlyGrace))
	default:
		if _, err := w.store.SetAgentTxStatus(ctx, t.OrgID, t.ID, store.TxAbandoned, "never broadcast; nonce given back", "", nil); err != nil {
			return
		}
		_ = w.store.ReleaseNonce(ctx, t.OrgID, t.ChainID, strings.ToLower(t.From), uint64(t.Nonce))
		w.log.Info("sign-only transaction abandoned", "transaction_id", t.ID)
	}
}

// later is when to check t next: the delay doubles with its age, up to
// MaxDelay; past its watch it is no longer checked (the zero time).
func (w *Watcher) later(t store.WatchedTx) time.Time {
	now := w.now()
	if now.After(t.WatchUntil) {
		return time.Time{}
	}
	delay := min(max(now.Sub(t.CreatedAt)/2, w.cfg.Interval), w.cfg.MaxDelay)
	return now.Add(delay)
}
