package chainrpc

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
)

// SendRawTransaction broadcasts a signed transaction (eth_sendRawTransaction)
// exactly once and returns its hash.
//
// Outcomes, and what the caller may do with the nonce:
//   - nil error: the node holds the transaction (an "already known" answer,
//     or "nonce too low" for this very transaction, counts as success, so a
//     resend of the same bytes is idempotent);
//   - ErrNonceTooLow: another transaction already used the nonce;
//     resynchronise the nonce, do not reuse it;
//   - ErrRejected: the node refused this transaction (underpriced, fee cap
//     below base fee, insufficient funds, ...); it was not accepted, so the
//     nonce may be released. Note "replacement transaction underpriced" means
//     a different pending transaction holds that nonce;
//   - ErrUnavailable / ErrTimeout / context errors: the outcome is unknown;
//     keep the nonce and resend the same bytes later.
func (c *Client) SendRawTransaction(ctx context.Context, raw []byte) (common.Hash, error) {
	const method = "eth_sendRawTransaction"
	var tx types.Transaction
	if err := tx.UnmarshalBinary(raw); err != nil {
		return common.Hash{}, fmt.Errorf("%w: decoding raw transaction: %w", ErrInvalidArgument, err)
	}
	hash := tx.Hash()
	err := c.attempt(ctx, method, func(ctx context.Context) error {
		var got common.Hash
		return c.rc.CallContext(ctx, &got, method, hexutil.Bytes(raw))
	})
	if err == nil {
		return hash, nil
	}
	var e *Error
	if !errors.As(err, &e) || !errors.Is(e, ErrNode) {
		return common.Hash{}, err
	}
	msg := strings.ToLower(e.Message)
	switch {
	case containsAny(msg, "already known", "known transaction", "already imported", "already exists", "already in mempool"):
		return hash, nil
	case containsAny(msg, "nonce too low", "nonce is too low", "oldnonce"):
		if c.knownTransaction(ctx, hash) {
			return hash, nil
		}
		e.kind = ErrNonceTooLow
	default:
		e.kind = ErrRejected
	}
	return common.Hash{}, e
}

// knownTransaction reports whether the node knows hash (pending or mined).
// A lookup failure counts as unknown.
func (c *Client) knownTransaction(ctx context.Context, hash common.Hash) bool {
	known := false
	err := c.read(ctx, "eth_getTransactionByHash", func(ctx context.Context) error {
		tx, _, err := c.ec.TransactionByHash(ctx, hash)
		if errors.Is(err, ethereum.NotFound) {
			return nil
		}
		known = err == nil && tx != nil
		return err
	})
	return err == nil && known
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
