package chainrpc

import (
	"context"
	"math/big"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"
)

// ethereumCallMsg keeps the URL test's call list short.
type ethereumCallMsg = ethereum.CallMsg

// signedRaw returns a valid signed transaction (never meant to be mined).
func signedRaw(t *testing.T) []byte {
	t.Helper()
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	tx := types.MustSignNewTx(key, types.LatestSignerForChainID(big.NewInt(1337)), &types.DynamicFeeTx{
		ChainID: big.NewInt(1337), Gas: 21000, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(1), Value: new(big.Int),
	})
	raw, err := tx.MarshalBinary()
	require.NoError(t, err)
	return raw
}

func TestPoolCachesPerURL(t *testing.T) {
	p := NewPool(Config{Egress: testEgress})
	t.Cleanup(p.Close)
	ctx := context.Background()

	var wg sync.WaitGroup
	got := make([]*Client, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := p.Client(ctx, "http://127.0.0.1:1/a")
			if err == nil {
				got[i] = c
			}
		}()
	}
	wg.Wait()
	for _, c := range got {
		require.NotNil(t, c)
		require.Same(t, got[0], c)
	}
	other, err := p.Client(ctx, "http://127.0.0.1:1/b")
	require.NoError(t, err)
	require.NotSame(t, got[0], other)
}

func TestPoolClose(t *testing.T) {
	p := NewPool(Config{Egress: testEgress})
	c, err := p.Client(context.Background(), "http://127.0.0.1:1/a")
	require.NoError(t, err)
	p.Close()
	p.Close() // idempotent

	_, err = p.Client(context.Background(), "http://127.0.0.1:1/a")
	require.ErrorIs(t, err, ErrClosed)
	_, err = c.ChainID(context.Background())
	require.ErrorIs(t, err, ErrClosed)
}

func TestConfigDefaults(t *testing.T) {
	tests := map[string]struct {
		in, want Config
	}{
		"zero takes defaults":  {in: Config{}, want: Config{Timeout: DefaultTimeout, Retries: DefaultRetries}},
		"negative retries off": {in: Config{Timeout: 5, Retries: -1}, want: Config{Timeout: 5, Retries: 0}},
		"explicit kept":        {in: Config{Timeout: 7, Retries: 4}, want: Config{Timeout: 7, Retries: 4}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.in.withDefaults())
		})
	}
}
