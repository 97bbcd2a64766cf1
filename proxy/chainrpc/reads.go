package chainrpc

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// ChainID returns the node's chain id (eth_chainId).
func (c *Client) ChainID(ctx context.Context) (*big.Int, error) {
	var id *big.Int
	err := c.read(ctx, "eth_chainId", func(ctx context.Context) (err error) {
		id, err = c.ec.ChainID(ctx)
		return err
	})
	return id, err
}

// PendingNonceAt returns the next nonce of addr counting pending transactions.
func (c *Client) PendingNonceAt(ctx context.Context, addr common.Address) (uint64, error) {
	var n uint64
	err := c.read(ctx, "eth_getTransactionCount", func(ctx context.Context) (err error) {
		n, err = c.ec.PendingNonceAt(ctx, addr)
		return err
	})
	return n, err
}

// BalanceAt returns addr's native balance in wei at the latest block.
func (c *Client) BalanceAt(ctx context.Context, addr common.Address) (*big.Int, error) {
	var b *big.Int
	err := c.read(ctx, "eth_getBalance", func(ctx context.Context) (err error) {
		b, err = c.ec.BalanceAt(ctx, addr, nil)
		return err
	})
	return b, err
}

// SuggestFees returns fee suggestions. On an EIP-1559 chain (the latest
// header has a base fee) tip is the node's suggested priority fee and
// maxFee = 2*baseFee + tip, which survives several full blocks of base-fee
// growth. On a legacy chain tip and maxFee are nil and the caller must build
// a legacy transaction priced at gasPrice.
func (c *Client) SuggestFees(ctx context.Context) (gasPrice, tip, maxFee *big.Int, err error) {
	var head *types.Header
	err = c.read(ctx, "eth_getBlockByNumber", func(ctx context.Context) (err error) {
		head, err = c.ec.HeaderByNumber(ctx, nil)
		return err
	})
	if err != nil {
		return nil, nil, nil, err
	}
	err = c.read(ctx, "eth_gasPrice", func(ctx context.Context) (err error) {
		gasPrice, err = c.ec.SuggestGasPrice(ctx)
		return err
	})
	if err != nil {
		return nil, nil, nil, err
	}
	if head.BaseFee == nil {
		return gasPrice, nil, nil, nil
	}
	err = c.read(ctx, "eth_maxPriorityFeePerGas", func(ctx context.Context) (err error) {
		tip, err = c.ec.SuggestGasTipCap(ctx)
		return err
	})
	if err != nil {
		return nil, nil, nil, err
	}
	maxFee = new(big.Int).Add(new(big.Int).Lsh(head.BaseFee, 1), tip)
	return gasPrice, tip, maxFee, nil
}

// EstimateGas estimates the gas msg needs at the latest state. A revert
// during estimation returns a *RevertError.
func (c *Client) EstimateGas(ctx context.Context, msg ethereum.CallMsg) (uint64, error) {
	var g uint64
	err := c.read(ctx, "eth_estimateGas", func(ctx context.Context) (err error) {
		g, err = c.ec.EstimateGas(ctx, msg)
		return err
	})
	return g, err
}

// Call executes msg at the latest block without a transaction (eth_call). A
// revert returns a *RevertError (errors.As) wrapping ErrReverted.
func (c *Client) Call(ctx context.Context, msg ethereum.CallMsg) ([]byte, error) {
	var out []byte
	err := c.read(ctx, "eth_call", func(ctx context.Context) (err error) {
		out, err = c.ec.CallContract(ctx, msg, nil)
		return err
	})
	return out, err
}

// TransactionReceipt returns the receipt of hash, or (nil, nil) while the
// transaction is not mined (or the node is still indexing it).
func (c *Client) TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error) {
	var r *types.Receipt
	err := c.read(ctx, "eth_getTransactionReceipt", func(ctx context.Context) (err error) {
		r, err = c.ec.TransactionReceipt(ctx, hash)
		if errors.Is(err, ethereum.NotFound) || isIndexing(err) {
			r, err = nil, nil
		}
		return err
	})
	return r, err
}

// isIndexing reports geth's "transaction indexing is in progress" answer,
// which means "ask again later", not failure.
func isIndexing(err error) bool {
	return err != nil && strings.Contains(err.Error(), "indexing is in progress")
}

// ERC-20 selectors.
var (
	selectorBalanceOf = []byte{0x70, 0xa0, 0x82, 0x31} // balanceOf(address)
	selectorDecimals  = []byte{0x31, 0x3c, 0xe5, 0x67} // decimals()
)

// TokenBalance returns holder's balance of the ERC-20 token (balanceOf via
// eth_call at the latest block).
func (c *Client) TokenBalance(ctx context.Context, token, holder common.Address) (*big.Int, error) {
	data := append(append([]byte(nil), selectorBalanceOf...), common.LeftPadBytes(holder.Bytes(), 32)...)
	out, err := c.Call(ctx, ethereum.CallMsg{To: &token, Data: data})
	if err != nil {
		return nil, err
	}
	if len(out) < 32 {
		// An account without code answers empty: not a token.
		return nil, fmt.Errorf("%w: balanceOf returned %d bytes", ErrInvalidResponse, len(out))
	}
	return new(big.Int).SetBytes(out[:32]), nil
}

// TokenDecimals returns the ERC-20 token's decimals().
func (c *Client) TokenDecimals(ctx context.Context, token common.Address) (uint8, error) {
	out, err := c.Call(ctx, ethereum.CallMsg{To: &token, Data: selectorDecimals})
	if err != nil {
		return 0, err
	}
	if len(out) < 32 {
		return 0, fmt.Errorf("%w: decimals returned %d bytes", ErrInvalidResponse, len(out))
	}
	d := new(big.Int).SetBytes(out[:32])
	if !d.IsUint64() || d.Uint64() > 255 {
		return 0, fmt.Errorf("%w: decimals out of range", ErrInvalidResponse)
	}
	return uint8(d.Uint64()), nil
}
