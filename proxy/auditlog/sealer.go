package auditlog

import (
	"context"
	"log/slog"
	"time"

	"github.com/opencustody/ocv/internal/store"
)

// ChainStore is what the sealer needs from storage.
type ChainStore interface {
	UnsealedOrgs(ctx context.Context, limit int) ([]string, error)
	SealChain(ctx context.Context, orgID string, max int) (store.ChainHead, bool, error)
	SaveHead(ctx context.Context, h store.SignedHead) error
}

// HeadSigner has the enclave sign a chain head.
type HeadSigner interface {
	SignAuditHead(ctx context.Context, h store.ChainHead) (sig []byte, kid string, err error)
}

// Sealer chains unsealed events of every organization in batches and has
// the enclave sign the new heads. Any number of replicas may run one: a
// per-organization advisory lock lets one at a time extend a chain.
type Sealer struct {
	db       ChainStore
	signer   HeadSigner
	interval time.Duration
	log      *slog.Logger
}

// NewSealer returns a sealer that runs every interval.
func NewSealer(db ChainStore, signer HeadSigner, interval time.Duration, log *slog.Logger) *Sealer {
	return &Sealer{db: db, signer: signer, interval: interval, log: log}
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

// SealOnce chains everything unsealed now.
func (s *Sealer) SealOnce(ctx context.Context) error {
	orgs, err := s.db.UnsealedOrgs(ctx, 1000)
	if err != nil {
		return err
	}
	for _, org := range orgs {
		for {
			head, ok, err := s.db.SealChain(ctx, org, sealBatch)
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			// A head the enclave cannot sign now is signed at the next
			// batch; the chain itself is already durable.
			if sig, kid, err := s.signer.SignAuditHead(ctx, head); err != nil {
				s.log.Debug("signing audit head", "org_id", org, "err", err)
			} else if err := s.db.SaveHead(ctx, store.SignedHead{ChainHead: head, Signature: sig, KID: kid}); err != nil {
				return err
			}
		}
	}
	return nil
}
