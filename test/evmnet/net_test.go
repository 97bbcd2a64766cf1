package evmnet

import (
	"context"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	"github.com/stretchr/testify/require"
)

// dial connects over the HTTP endpoint, as production code would.
func dial(t *testing.T, n *Net) *ethclient.Client {
	t.Helper()
	c, err := ethclient.Dial(n.URL)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

func balanceOf(t *testing.T, c *ethclient.Client, token, holder common.Address) *big.Int {
	t.Helper()
	out, err := c.CallContract(context.Background(), ethereum.CallMsg{To: &token, Data: BalanceOfData(holder)}, nil)
	require.NoError(t, err)
	require.Len(t, out, 32)
	return new(big.Int).SetBytes(out)
}

// revertReason returns the Error(string) message carried by an eth_call error.
func revertReason(t *testing.T, err error) string {
	t.Helper()
	require.Error(t, err)
	data, ok := ethclient.RevertErrorData(err)
	require.True(t, ok, "no revert data in %v", err)
	require.GreaterOrEqual(t, len(data), 68)
	require.Equal(t, []byte{0x08, 0xc3, 0x79, 0xa0}, data[:4])
	n := new(big.Int).SetBytes(data[36:68]).Uint64()
	require.LessOrEqual(t, 68+int(n), len(data))
	return string(data[68 : 68+n])
}

func TestNetServesFundedChain(t *testing.T) {
	n := Start(t)
	c := dial(t, n)
	ctx := context.Background()

	id, err := c.ChainID(ctx)
	require.NoError(t, err)
	require.Equal(t, n.ChainID, id.Uint64())
	require.True(t, strings.HasPrefix(n.URL, "http://127.0.0.1:"))
	require.Len(t, n.Keys, 3)
	for i := range n.Keys {
		bal, err := c.BalanceAt(ctx, n.Address(i), nil)
		require.NoError(t, err)
		require.Equal(t, InitialBalance, bal)
	}

	to := common.HexToAddress("0x00000000000000000000000000000000000000b0")
	n.Fund(t, to, big.NewInt(params.GWei))
	bal, err := c.BalanceAt(ctx, to, nil)
	require.NoError(t, err)
	require.Equal(t, big.NewInt(params.GWei), bal)

	before, err := c.BlockNumber(ctx)
	require.NoError(t, err)
	n.Commit()
	after, err := c.BlockNumber(ctx)
	require.NoError(t, err)
	require.Equal(t, before+1, after)
}

func TestToken(t *testing.T) {
	n := Start(t)
	c := dial(t, n)
	ctx := context.Background()
	holder, other := n.Address(1), n.Address(2)
	supply := new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(params.Ether))
	token := n.DeployToken(t, holder, supply)

	require.Equal(t, supply, balanceOf(t, c, token, holder))
	require.Zero(t, balanceOf(t, c, token, other).Sign())

	dec, err := c.CallContract(ctx, ethereum.CallMsg{To: &token, Data: SelectorDecimals[:]}, nil)
	require.NoError(t, err)
	require.Equal(t, big.NewInt(TokenDecimals), new(big.Int).SetBytes(dec))

	// transfer returns true when simulated.
	amount := big.NewInt(12345)
	ret, err := c.CallContract(ctx, ethereum.CallMsg{From: holder, To: &token, Data: TransferData(other, amount)}, nil)
	require.NoError(t, err)
	require.Equal(t, common.LeftPadBytes([]byte{1}, 32), ret)

	r := n.Send(t, n.Keys[1], &token, nil, TransferData(other, amount), 0)
	require.Equal(t, types.ReceiptStatusSuccessful, r.Status)
	require.Len(t, r.Logs, 1)
	lg := r.Logs[0]
	require.Equal(t, token, lg.Address)
	require.Equal(t, []common.Hash{TransferTopic, common.BytesToHash(holder.Bytes()), common.BytesToHash(other.Bytes())}, lg.Topics)
	require.Equal(t, amount, new(big.Int).SetBytes(lg.Data))
	require.Equal(t, new(big.Int).Sub(supply, amount), balanceOf(t, c, token, holder))
	require.Equal(t, amount, balanceOf(t, c, token, other))

	// A self-transfer leaves the balance unchanged.
	r = n.Send(t, n.Keys[2], &token, nil, TransferData(other, amount), 0)
	require.Equal(t, types.ReceiptStatusSuccessful, r.Status)
	require.Equal(t, amount, balanceOf(t, c, token, other))

	// Overspending reverts with the reason, and a mined overspend fails.
	_, err = c.CallContract(ctx, ethereum.CallMsg{From: other, To: &token, Data: TransferData(holder, new(big.Int).Add(amount, big.NewInt(1)))}, nil)
	require.Equal(t, ReasonInsufficientBalance, revertReason(t, err))
	r = n.Send(t, n.Keys[2], &token, nil, TransferData(holder, supply), 0)
	require.Equal(t, types.ReceiptStatusFailed, r.Status)
	require.Empty(t, r.Logs)
}

func TestTokenRejects(t *testing.T) {
	n := Start(t)
	c := dial(t, n)
	holder := n.Address(0)
	token := n.DeployToken(t, holder, big.NewInt(10))
	short := TransferData(holder, big.NewInt(1))[:40]

	tests := map[string]ethereum.CallMsg{
		"fail unknown selector":    {From: holder, To: &token, Data: []byte{0xde, 0xad, 0xbe, 0xef}},
		"fail empty calldata":      {From: holder, To: &token},
		"fail truncated transfer":  {From: holder, To: &token, Data: short}, // would read zero-padded args
		"fail value sent to token": {From: holder, To: &token, Data: BalanceOfData(holder), Value: big.NewInt(1)},
		"fail truncated balanceOf": {From: holder, To: &token, Data: SelectorBalanceOf[:]},
	}
	for name, msg := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := c.CallContract(context.Background(), msg, nil)
			require.ErrorContains(t, err, "execution reverted")
		})
	}
}

func TestReverter(t *testing.T) {
	n := Start(t)
	c := dial(t, n)
	rev := n.DeployReverter(t)
	for _, data := range [][]byte{nil, {1, 2, 3, 4}, TransferData(n.Address(0), big.NewInt(1))} {
		_, err := c.CallContract(context.Background(), ethereum.CallMsg{From: n.Address(0), To: &rev, Data: data}, nil)
		require.Equal(t, ReasonAlwaysReverts, revertReason(t, err))
	}
	code, err := c.CodeAt(context.Background(), rev, nil)
	require.NoError(t, err)
	require.NotEmpty(t, code)
	require.NotEqual(t, crypto.Keccak256Hash(nil), crypto.Keccak256Hash(code))
}
