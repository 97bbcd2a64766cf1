package intents

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/opencustody/ocv/internal/store"
)

// checkpoint commits a transaction about to be broadcast before it leaves:
// in a request with an Idempotency-Key, the request's idempotent
// transaction (the reservations, the signed record with its raw bytes and
// hash, its audit event) commits now with a provisional answer, the
// record as signed. A retry of the request after a crash replays that
// answer and never signs again; the transaction watcher sends the same raw
// bytes if the broadcast did not happen (same hash: harmless on chain).
// Without a key it does nothing.
func (s *Service) checkpoint(ctx context.Context, rec store.AgentTx) error {
	body, err := json.Marshal(TransactionOf(rec, true))
	if err != nil {
		return fmt.Errorf("encoding the provisional answer: %w", err)
	}
	return s.txs.CheckpointIdempotent(ctx, store.IdempotentResponse{
		Status: http.StatusOK,
		Header: map[string][]string{"Content-Type": {"application/json"}, "Cache-Control": {"no-store"}},
		Body:   body,
	})
}

// forgetCheckpoint drops the provisional answer of a transaction the node
// refused (nothing reached the chain, the nonce and spend were given back):
// a retry with the same key signs and sends again.
func (s *Service) forgetCheckpoint(ctx context.Context) {
	_ = s.txs.ForgetIdempotent(context.WithoutCancel(ctx))
}
