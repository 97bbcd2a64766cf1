package x402_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/metering/x402"
	"github.com/opencustody/ocv/proxy/metering/x402/x402test"
)

type memNonces struct {
	mu   sync.Mutex
	seen map[string]string
	err  error
}

func (m *memNonces) UsePaymentNonce(_ context.Context, nonce, orgID, _ string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return m.err
	}
	if _, ok := m.seen[nonce]; ok {
		return fmt.Errorf("mem: %w", store.ErrReused)
	}
	m.seen[nonce] = orgID
	return nil
}

var errDB = errors.New("database down")

func TestProcessorAccept(t *testing.T) {
	key := newKey(t)
	nonces := &memNonces{seen: map[string]string{}}
	fac := &x402test.Facilitator{}
	p, err := x402.NewProcessor(testConfig(), nonces, fac, x402.WithClock(func() time.Time { return testNow }))
	require.NoError(t, err)
	header := signed(t, p.Config(), key, nil).Encode()

	payer, err := p.Check(header)
	require.NoError(t, err)
	require.Empty(t, nonces.seen, "Check spends nothing")

	res, err := p.Accept(context.Background(), header, "https://api.test/v1/vaults", "org-1")
	require.NoError(t, err)
	require.True(t, res.Success)
	require.Equal(t, payer, res.Payer)
	require.Equal(t, 1, fac.Calls())

	_, err = p.Accept(context.Background(), header, "https://api.test/v1/vaults", "org-1")
	require.ErrorIs(t, err, x402.ErrNonceReused, "a replayed payment is refused")
	require.True(t, x402.IsPaymentError(err))
	require.Equal(t, 1, fac.Calls(), "a replay never reaches the facilitator")

	fac.Fail = true
	_, err = p.Accept(context.Background(), signed(t, p.Config(), key, nil).Encode(), "https://api.test/", "")
	require.ErrorIs(t, err, x402.ErrSettlement)

	nonces.err = errDB
	_, err = p.Accept(context.Background(), signed(t, p.Config(), key, nil).Encode(), "https://api.test/", "")
	require.ErrorIs(t, err, errDB)
	require.False(t, x402.IsPaymentError(err), "a storage failure is not the payer's fault")

	_, err = p.Accept(context.Background(), "garbage", "https://api.test/", "")
	require.ErrorIs(t, err, x402.ErrMalformed)
}

func TestNewProcessorConfig(t *testing.T) {
	tests := map[string]struct {
		cfg     x402.PaymentConfig
		wantErr error
	}{
		"ok disabled":               {cfg: x402.PaymentConfig{}},
		"ok base-sepolia":           {cfg: x402.PaymentConfig{PayTo: payTo, Network: "base-sepolia", FacilitatorURL: "https://f.test"}},
		"fail unknown network":      {cfg: x402.PaymentConfig{Network: "solana"}, wantErr: x402.ErrUnsupported},
		"fail pay_to not address":   {cfg: x402.PaymentConfig{PayTo: "alice", FacilitatorURL: "https://f.test"}, wantErr: x402.ErrMalformed},
		"fail no facilitator":       {cfg: x402.PaymentConfig{PayTo: payTo}, wantErr: x402.ErrMalformed},
		"fail facilitator scheme":   {cfg: x402.PaymentConfig{PayTo: payTo, FacilitatorURL: "file:///etc"}, wantErr: x402.ErrMalformed},
		"fail zero price":           {cfg: x402.PaymentConfig{PriceAtomic: "0"}, wantErr: x402.ErrMalformed},
		"fail negative max timeout": {cfg: x402.PaymentConfig{MaxTimeoutSeconds: -1}, wantErr: x402.ErrMalformed},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := x402.NewProcessor(tc.cfg, &memNonces{}, nil)
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
}
