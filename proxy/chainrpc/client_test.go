package chainrpc

import (
	"context"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/opencustody/ocv/test/evmnet"
	"github.com/stretchr/testify/require"
)

func TestReads(t *testing.T) {
	n, c := startNet(t)
	ctx := context.Background()

	id, err := c.ChainID(ctx)
	require.NoError(t, err)
	require.Equal(t, evmnet.ChainID, id.Uint64())

	nonce, err := c.PendingNonceAt(ctx, n.Address(2))
	require.NoError(t, err)
	require.Zero(t, nonce)

	bal, err := c.BalanceAt(ctx, n.Address(2))
	require.NoError(t, err)
	require.Equal(t, evmnet.InitialBalance, bal)

	gasPrice, tip, maxFee, err := c.SuggestFees(ctx)
	require.NoError(t, err)
	require.Positive(t, gasPrice.Sign())
	require.NotNil(t, tip)
	require.NotNil(t, maxFee)
	require.Positive(t, tip.Sign())
	require.GreaterOrEqual(t, maxFee.Cmp(new(big.Int).Add(tip, tip)), 0) // 2*baseFee + tip >= tip
}

func TestEstimateAndCall(t *testing.T) {
	n, c := startNet(t)
	ctx := context.Background()
	holder, other := n.Address(1), n.Address(2)
	token := n.DeployToken(t, holder, big.NewInt(1000))
	reverter := n.DeployReverter(t)

	g, err := c.EstimateGas(ctx, ethereum.CallMsg{From: holder, To: &token, Data: evmnet.TransferData(other, big.NewInt(5))})
	require.NoError(t, err)
	require.Greater(t, g, params.TxGas)

	tests := map[string]struct {
		msg        ethereum.CallMsg
		wantReason string
	}{
		"always reverts": {
			msg:        ethereum.CallMsg{From: holder, To: &reverter},
			wantReason: evmnet.ReasonAlwaysReverts,
		},
		"insufficient balance": {
			msg:        ethereum.CallMsg{From: other, To: &token, Data: evmnet.TransferData(holder, big.NewInt(1))},
			wantReason: evmnet.ReasonInsufficientBalance,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := c.Call(ctx, tc.msg)
			require.ErrorIs(t, err, ErrReverted)
			var rev *RevertError
			require.True(t, errors.As(err, &rev))
			require.Equal(t, tc.wantReason, rev.Reason)
			require.Equal(t, evmnet.EncodeErrorString(tc.wantReason), rev.Data)

			_, err = c.EstimateGas(ctx, tc.msg)
			require.True(t, errors.As(err, &rev))
			require.Equal(t, tc.wantReason, rev.Reason)
		})
	}

	out, err := c.Call(ctx, ethereum.CallMsg{To: &token, Data: evmnet.BalanceOfData(holder)})
	require.NoError(t, err)
	require.Equal(t, big.NewInt(1000), new(big.Int).SetBytes(out))
}

func TestTokenReads(t *testing.T) {
	n, c := startNet(t)
	ctx := context.Background()
	supply := new(big.Int).Mul(big.NewInt(5), big.NewInt(params.Ether))
	token := n.DeployToken(t, n.Address(1), supply)

	bal, err := c.TokenBalance(ctx, token, n.Address(1))
	require.NoError(t, err)
	require.Equal(t, supply, bal)
	bal, err = c.TokenBalance(ctx, token, n.Address(2))
	require.NoError(t, err)
	require.Zero(t, bal.Sign())

	dec, err := c.TokenDecimals(ctx, token)
	require.NoError(t, err)
	require.Equal(t, uint8(evmnet.TokenDecimals), dec)

	// An account without code answers eth_call with nothing: not a token.
	_, err = c.TokenBalance(ctx, n.Address(0), n.Address(1))
	require.ErrorIs(t, err, ErrInvalidResponse)
	_, err = c.TokenDecimals(ctx, n.Address(0))
	require.ErrorIs(t, err, ErrInvalidResponse)
}

func TestSendAndReceipt(t *testing.T) {
	n, c := startNet(t)
	ctx := context.Background()
	key := n.Keys[1]
	to := common.HexToAddress("0x00000000000000000000000000000000000000c0")

	r, err := c.TransactionReceipt(ctx, common.Hash{0x01})
	require.NoError(t, err)
	require.Nil(t, r, "unknown hash is not yet mined")

	_, tip, maxFee, err := c.SuggestFees(ctx)
	require.NoError(t, err)
	raw := signedTransfer(t, c, key, 0, to, big.NewInt(params.GWei), tip, maxFee, params.TxGas, nil)
	hash, err := c.SendRawTransaction(ctx, raw)
	require.NoError(t, err)
	var tx types.Transaction
	require.NoError(t, tx.UnmarshalBinary(raw))
	require.Equal(t, tx.Hash(), hash)

	r = waitReceipt(t, c, hash)
	require.Equal(t, types.ReceiptStatusSuccessful, r.Status)
	bal, err := c.BalanceAt(ctx, to)
	require.NoError(t, err)
	require.Equal(t, big.NewInt(params.GWei), bal)

	// Resending the mined transaction is idempotent ("nonce too low" for the same hash).
	again, err := c.SendRawTransaction(ctx, raw)
	require.NoError(t, err)
	require.Equal(t, hash, again)

	tests := map[string]struct {
		raw     []byte
		wantErr error
	}{
		"fail different tx with used nonce": {
			raw:     signedTransfer(t, c, key, 0, to, big.NewInt(2), tip, maxFee, params.TxGas, nil),
			wantErr: ErrNonceTooLow,
		},
		"fail fee cap below base fee": {
			raw:     signedTransfer(t, c, key, 1, to, big.NewInt(1), big.NewInt(0), big.NewInt(1), params.TxGas, nil),
			wantErr: ErrRejected,
		},
		"fail insufficient funds": {
			raw:     signedTransfer(t, c, key, 1, to, new(big.Int).Mul(evmnet.InitialBalance, big.NewInt(2)), tip, maxFee, params.TxGas, nil),
			wantErr: ErrRejected,
		},
		"fail garbage bytes": {raw: []byte{0x02, 0xff, 0x00}, wantErr: ErrInvalidArgument},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := c.SendRawTransaction(ctx, tc.raw)
			require.ErrorIs(t, err, tc.wantErr)
		})
	}

	// A pending transaction sent twice is "already known": success.
	pending := signedTransfer(t, c, n.Keys[2], 0, to, big.NewInt(3), tip, maxFee, params.TxGas, nil)
	h1, err := c.SendRawTransaction(ctx, pending)
	require.NoError(t, err)
	h2, err := c.SendRawTransaction(ctx, pending)
	require.NoError(t, err)
	require.Equal(t, h1, h2)
	waitReceipt(t, c, h1)

	nonce, err := c.PendingNonceAt(ctx, addr(key))
	require.NoError(t, err)
	require.Equal(t, uint64(1), nonce)
}
