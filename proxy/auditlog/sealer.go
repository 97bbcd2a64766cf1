package auditlog

import (
	"context"
	"crypto/subtle"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
)

// ChainStore is what the sealer needs from storage.
type ChainStore interface {
	UnsealedOrgs(ctx context.Context, limit int) ([]string, error)
	SealChain(ctx context.Context, orgID string, max int) (store.ChainHead, int, error)
	UnsignedOrgs(ctx context.Context, limit int) ([]string, error)
	LastHead(ctx context.Context, orgID string) (store.SignedHead, bool, error)
	ChainEvents(ctx context.Context, orgID string, afterSeq int64, limit int) ([]*auditchain.Event, error)
	SaveHead(ctx context.Context, h store.SignedHead) error
}

// HeadSigner has the enclave extend a chain over event digests and sign
// the new head (enclave/client.Client).
type HeadSigner interface {
	ExtendAuditHead(ctx context.Context, req wire.ExtendAuditHeadRequest) (wire.ExtendAuditHeadResponse, error)
}

// HeadSink keeps signed heads outside PostgreSQL (DirSink, S3Sink, Sinks).
type HeadSink interface {
	AppendHead(ctx context.Context, h store.SignedHead) error
}

// Sealer runs on a timer. Each run it chains the events that were inserted
// unsealed (a write's event, recorded in the write's own transaction; the
// committer's events are chained as they are inserted), then has the
// enclave extend each chain from its last signed head and sign the new
// one, which it writes to the sink and then to the database: one enclave
// call per organization per run, for up to wire.MaxAuditDigests events.
// Any number of replicas may run one: the lock on a chain's tip orders
// their chaining, and the enclave signs only heads that extend the last.
type Sealer struct {
	db       ChainStore
	signer   HeadSigner
	sink     HeadSink
	interval time.Duration
	log      *slog.Logger
	// Failures counts heads that could not be signed or kept (each is
	// retried at the next run); nil: not counted.
	Failures *atomic.Uint64
}

// NewSealer returns a sealer that runs every interval; sink may be nil.
func NewSealer(db ChainStore, signer HeadSigner, sink HeadSink, interval time.Duration, log *slog.Logger) *Sealer {
	return &Sealer{db: db, signer: signer, sink: sink, interval: interval, log: log}
}

// Run seals until ctx ends.
func (s *Sealer) Run(ctx context.Context) {
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		if err := s.SealOnce(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("sealing audit chains", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// sealBatch bounds the events one transaction chains.
const sealBatch = 5000

// SealOnce chains what was inserted unsealed, then signs every chain that
// runs past its last signed head. A head that cannot be signed is a warning and
// a counted failure, and is tried again at the next run from the last head
// that was kept: nothing is lost, and the enclave's floor keeps a retry
// from counting events twice.
func (s *Sealer) SealOnce(ctx context.Context) error {
	orgs, err := s.db.UnsealedOrgs(ctx, 1000)
	if err != nil {
		return err
	}
	for _, org := range orgs {
		// Only a full batch means more is waiting: events that arrive
		// meanwhile wait for the next run, never a loop of small batches.
		for {
			_, n, err := s.db.SealChain(ctx, org, sealBatch)
			if err != nil {
				return err
			}
			if n < sealBatch {
				break
			}
		}
	}
	unsigned, err := s.db.UnsignedOrgs(ctx, 1000)
	if err != nil {
		return err
	}
	for _, org := range unsigned {
		if err := s.signChain(ctx, org); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			s.log.Warn("audit head not signed; retrying at the next run", "org_id", org, "err", err)
			if s.Failures != nil {
				s.Failures.Add(1)
			}
		}
	}
	return nil
}

// signChain extends org's signed chain, wire.MaxAuditDigests events per
// call, up to the end of what is sealed.
func (s *Sealer) signChain(ctx context.Context, org string) error {
	last, ok, err := s.db.LastHead(ctx, org)
	if err != nil {
		return err
	}
	if !ok {
		last = store.SignedHead{ChainHead: store.ChainHead{OrgID: org, Hash: auditchain.Genesis}}
	}
	for {
		evs, err := s.db.ChainEvents(ctx, org, last.Seq, wire.MaxAuditDigests)
		if err != nil || len(evs) == 0 {
			return err
		}
		prev := last.ChainHead
		// Events linked before the enclave extended chains (a legacy tail
		// after the last head) cannot be extended over: start after them
		// (trust on first use; docs/threat-model.d/audit.md).
		for len(evs) > 0 && subtle.ConstantTimeCompare(auditchain.LegacyHash(prev.Hash, evs[0]), evs[0].Hash) == 1 {
			prev = store.ChainHead{OrgID: org, Seq: evs[0].ChainSeq, EventID: evs[0].ID, Hash: evs[0].Hash}
			evs = evs[1:]
		}
		if len(evs) == 0 {
			last.ChainHead = prev
			continue
		}
		head, err := s.extend(ctx, prev, evs)
		if err != nil {
			return err
		}
		if s.sink != nil {
			if err := s.sink.AppendHead(ctx, head); err != nil {
				return fmt.Errorf("writing the head to the external sink: %w", err)
			}
		}
		if err := s.db.SaveHead(ctx, head); err != nil {
			return err
		}
		last = head
		if len(evs) < wire.MaxAuditDigests {
			return nil
		}
	}
}

// extend has the enclave chain evs after prev and checks that its chain is
// the database's.
func (s *Sealer) extend(ctx context.Context, prev store.ChainHead, evs []*auditchain.Event) (store.SignedHead, error) {
	req := wire.ExtendAuditHeadRequest{OrgID: prev.OrgID, PrevSeq: uint64(prev.Seq), LastEventID: evs[len(evs)-1].ID,
		Digests: make([][32]byte, len(evs))}
	copy(req.PrevHash[:], prev.Hash)
	for i, e := range evs {
		if e.ChainSeq != prev.Seq+int64(i)+1 {
			return store.SignedHead{}, fmt.Errorf("chain of org %s jumps to seq %d after %d", prev.OrgID, e.ChainSeq, prev.Seq+int64(i))
		}
		req.Digests[i] = auditchain.Digest(e)
	}
	resp, err := s.signer.ExtendAuditHead(ctx, req)
	if err != nil {
		return store.SignedHead{}, fmt.Errorf("enclave refused to extend the chain of org %s from seq %d: %w", prev.OrgID, prev.Seq, err)
	}
	end := evs[len(evs)-1]
	if int64(resp.Seq) != end.ChainSeq || subtle.ConstantTimeCompare(resp.Hash[:], end.Hash) != 1 {
		return store.SignedHead{}, fmt.Errorf("the enclave's chain of org %s differs from the database's at seq %d", prev.OrgID, end.ChainSeq)
	}
	return store.SignedHead{ChainHead: store.ChainHead{OrgID: prev.OrgID, Seq: end.ChainSeq, EventID: end.ID, Hash: end.Hash},
		Signature: resp.Signature, KID: resp.KID, SignedAt: time.Now().UTC()}, nil
}
