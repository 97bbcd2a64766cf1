package chainrpc

import (
	"bytes"
	"context"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/opencustody/ocv/test/evmnet"
	"github.com/stretchr/testify/require"
)

func TestSimulateERC20Transfer(t *testing.T) {
	n, c := startNet(t)
	holder, other := n.Address(1), n.Address(2)
	token := n.DeployToken(t, holder, big.NewInt(1000))

	res, err := c.Simulate(context.Background(), holder, []ethereum.CallMsg{
		{To: &token, Data: evmnet.TransferData(other, big.NewInt(40))},
	})
	require.NoError(t, err)
	require.Len(t, res, 1)
	r := res[0]
	require.Equal(t, types.ReceiptStatusSuccessful, r.Status)
	require.False(t, r.Partial)
	require.Nil(t, r.Revert)
	require.Equal(t, common.LeftPadBytes([]byte{1}, 32), r.ReturnData)
	require.Positive(t, r.GasUsed)
	require.Positive(t, r.GasEstimate)
	require.Len(t, r.Logs, 1)
	require.Equal(t, evmnet.TransferTopic, r.Logs[0].Topics[0])
	require.Equal(t, []BalanceChange{
		{Address: holder, Token: token.Hex(), Delta: big.NewInt(-40)},
		{Address: other, Token: token.Hex(), Delta: big.NewInt(40)},
	}, r.BalanceChanges)

	// Nothing was mined: the simulation left the chain untouched.
	bal, err := c.TokenBalance(context.Background(), token, holder)
	require.NoError(t, err)
	require.Equal(t, big.NewInt(1000), bal)
}

func TestSimulateBundle(t *testing.T) {
	n, c := startNet(t)
	from, mid, sink := n.Address(1), n.Address(2), common.HexToAddress("0x00000000000000000000000000000000000000d0")
	token := n.DeployToken(t, from, big.NewInt(1000))
	reverter := n.DeployReverter(t)

	res, err := c.Simulate(context.Background(), from, []ethereum.CallMsg{
		{To: &token, Data: evmnet.TransferData(mid, big.NewInt(100))},
		{To: &sink, Value: big.NewInt(params.GWei)},
		{To: &reverter, Data: []byte{1, 2, 3, 4}},
		// Overspends the 900 left after call 0, so it sees call 0's state.
		{To: &token, Data: evmnet.TransferData(mid, big.NewInt(901))},
		{To: &token, Data: evmnet.TransferData(mid, big.NewInt(900))},
	})
	require.NoError(t, err)
	require.Len(t, res, 5)

	require.Equal(t, types.ReceiptStatusSuccessful, res[0].Status)

	require.Equal(t, types.ReceiptStatusSuccessful, res[1].Status)
	require.Empty(t, res[1].Logs, "native pseudo-logs are not reported as logs")
	require.Equal(t, []BalanceChange{
		{Address: from, Delta: big.NewInt(-params.GWei)},
		{Address: sink, Delta: big.NewInt(params.GWei)},
	}, res[1].BalanceChanges)

	for i, want := range map[int]string{2: evmnet.ReasonAlwaysReverts, 3: evmnet.ReasonInsufficientBalance} {
		require.Equal(t, types.ReceiptStatusFailed, res[i].Status, "call %d", i)
		require.NotNil(t, res[i].Revert, "call %d", i)
		require.Equal(t, want, res[i].Revert.Reason)
		require.ErrorIs(t, res[i].Revert, ErrReverted)
		require.Empty(t, res[i].BalanceChanges)
	}
	require.Equal(t, types.ReceiptStatusSuccessful, res[4].Status)
	require.Zero(t, res[4].GasEstimate, "no estimate inside a multi-call bundle")

	require.Equal(t, []BalanceChange{
		{Address: from, Token: token.Hex(), Delta: big.NewInt(-1000)},
		{Address: mid, Token: token.Hex(), Delta: big.NewInt(1000)},
		{Address: from, Delta: big.NewInt(-params.GWei)},
		{Address: sink, Delta: big.NewInt(params.GWei)},
	}, NetBalanceChanges(res))
}

func TestSimulateRejectsEmptyBundle(t *testing.T) {
	c := dialClient(t, "http://127.0.0.1:1", Config{Retries: -1})
	_, err := c.Simulate(context.Background(), common.Address{}, nil)
	require.ErrorIs(t, err, ErrInvalidArgument)
}

// withoutSimulate fronts the node with a proxy that answers eth_simulateV1
// with "method not found", as older nodes and many providers do.
func withoutSimulate(t *testing.T, nodeURL string) string {
	t.Helper()
	target, err := url.Parse(nodeURL)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "read", http.StatusBadRequest)
			return
		}
		if bytes.Contains(body, []byte(`"eth_simulateV1"`)) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"the method eth_simulateV1 does not exist/is not available"}}`)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestSimulateFallback(t *testing.T) {
	n := evmnet.Start(t)
	c := dialClient(t, withoutSimulate(t, n.URL), Config{})
	from, other := n.Address(1), n.Address(2)
	token := n.DeployToken(t, from, big.NewInt(1000))
	reverter := n.DeployReverter(t)

	res, err := c.Simulate(context.Background(), from, []ethereum.CallMsg{
		{To: &token, Data: evmnet.TransferData(other, big.NewInt(10))},
		{To: &reverter},
	})
	require.NoError(t, err)
	require.Len(t, res, 2)
	require.True(t, res[0].Partial)
	require.True(t, res[1].Partial)
	require.Equal(t, types.ReceiptStatusSuccessful, res[0].Status)
	require.Positive(t, res[0].GasEstimate)
	require.Empty(t, res[0].BalanceChanges)
	require.Equal(t, types.ReceiptStatusFailed, res[1].Status)
	require.Equal(t, evmnet.ReasonAlwaysReverts, res[1].Revert.Reason)
}
