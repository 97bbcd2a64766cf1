package chainrpc

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/opencustody/ocv/internal/egress"
	"github.com/opencustody/ocv/test/evmnet"
	"github.com/stretchr/testify/require"
)

// startNet boots a chain and returns it with a Client dialled over HTTP.
func startNet(t *testing.T) (*evmnet.Net, *Client) {
	t.Helper()
	n := evmnet.Start(t)
	return n, dialClient(t, n.URL, Config{})
}

// testEgress admits the loopback nodes and servers of the tests.
var testEgress = egress.New(egress.Config{AllowLoopback: true})

func dialClient(t *testing.T, rpcURL string, cfg Config) *Client {
	t.Helper()
	if cfg.Egress == nil {
		cfg.Egress = testEgress
	}
	p := NewPool(cfg)
	t.Cleanup(p.Close)
	c, err := p.Client(context.Background(), rpcURL)
	require.NoError(t, err)
	return c
}

// signedTransfer builds and signs an EIP-1559 transaction from key.
func signedTransfer(t *testing.T, c *Client, key *ecdsa.PrivateKey, nonce uint64, to common.Address, value *big.Int, tip, maxFee *big.Int, gas uint64, data []byte) []byte {
	t.Helper()
	tx := types.MustSignNewTx(key, types.LatestSignerForChainID(big.NewInt(int64(evmnet.ChainID))), &types.DynamicFeeTx{
		ChainID: big.NewInt(int64(evmnet.ChainID)), Nonce: nonce, GasTipCap: tip, GasFeeCap: maxFee,
		Gas: gas, To: &to, Value: value, Data: data,
	})
	raw, err := tx.MarshalBinary()
	require.NoError(t, err)
	return raw
}

// waitReceipt polls TransactionReceipt until the auto-miner has mined hash.
func waitReceipt(t *testing.T, c *Client, hash common.Hash) *types.Receipt {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // hang guard only
	defer cancel()
	for {
		r, err := c.TransactionReceipt(ctx, hash)
		require.NoError(t, err)
		if r != nil {
			return r
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no receipt for %s", hash)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func addr(key *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(key.PublicKey) }
