package x402_test

import (
	"encoding/hex"
	"math/big"
	"strconv"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/proxy/metering/x402"
)

func TestVerify(t *testing.T) {
	cfg := testConfig()
	key, other := newKey(t), newKey(t)
	unix := func(d int64) string { return strconv.FormatInt(testNow.Unix()+d, 10) }

	tests := map[string]struct {
		payload func() x402.Payload
		cfg     func(c x402.PaymentConfig) x402.PaymentConfig
		wantErr error
	}{
		"ok": {payload: func() x402.Payload { return signed(t, cfg, key, nil) }},
		"ok value above price": {payload: func() x402.Payload {
			return signed(t, cfg, key, func(a *x402.Authorization) { a.Value = "20000" })
		}},
		"ok payee in other letter case": {payload: func() x402.Payload {
			return signed(t, cfg, key, func(a *x402.Authorization) { a.To = "0x209693bc6afc0c5328ba36faf03c514ef312287c" })
		}},
		"ok v as 0/1": {payload: func() x402.Payload {
			p := signed(t, cfg, key, nil)
			sig, _ := hex.DecodeString(p.Payload.Signature[2:])
			sig[64] -= 27
			p.Payload.Signature = "0x" + hex.EncodeToString(sig)
			return p
		}},
		"fail disabled": {payload: func() x402.Payload { return signed(t, cfg, key, nil) },
			cfg: func(c x402.PaymentConfig) x402.PaymentConfig { c.PayTo = ""; return c }, wantErr: x402.ErrDisabled},
		"fail other network": {payload: func() x402.Payload {
			p := signed(t, cfg, key, nil)
			p.Network = x402.NetworkBaseSepolia
			return p
		}, wantErr: x402.ErrUnsupported},
		"fail other scheme": {payload: func() x402.Payload {
			p := signed(t, cfg, key, nil)
			p.Scheme = "upto"
			return p
		}, wantErr: x402.ErrUnsupported},
		"fail other version": {payload: func() x402.Payload {
			p := signed(t, cfg, key, nil)
			p.X402Version = 2
			return p
		}, wantErr: x402.ErrUnsupported},
		"fail pays someone else": {payload: func() x402.Payload {
			return signed(t, cfg, key, func(a *x402.Authorization) { a.To = crypto.PubkeyToAddress(other.PublicKey).Hex() })
		}, wantErr: x402.ErrWrongPayee},
		"fail below price": {payload: func() x402.Payload {
			return signed(t, cfg, key, func(a *x402.Authorization) { a.Value = "9999" })
		}, wantErr: x402.ErrInsufficient},
		"fail not yet valid": {payload: func() x402.Payload {
			return signed(t, cfg, key, func(a *x402.Authorization) { a.ValidAfter = unix(10) })
		}, wantErr: x402.ErrNotYetValid},
		"fail expired at validBefore": {payload: func() x402.Payload {
			return signed(t, cfg, key, func(a *x402.Authorization) { a.ValidBefore = unix(0) })
		}, wantErr: x402.ErrExpired},
		// A long-lived authorization could be replayed after its nonce is purged.
		"fail valid far beyond the timeout": {payload: func() x402.Payload {
			return signed(t, cfg, key, func(a *x402.Authorization) { a.ValidBefore = unix(3600) })
		}, wantErr: x402.ErrExpired},
		// The signature is someone else's while "from" claims the payer.
		"fail signed by another key": {payload: func() x402.Payload {
			p := signed(t, cfg, other, nil)
			p.Payload.Authorization.From = crypto.PubkeyToAddress(key.PublicKey).Hex()
			return p
		}, wantErr: x402.ErrBadSignature},
		"fail value raised after signing": {payload: func() x402.Payload {
			p := signed(t, cfg, key, nil)
			p.Payload.Authorization.Value = "10000000"
			return p
		}, wantErr: x402.ErrBadSignature},
		"fail nonce changed after signing": {payload: func() x402.Payload {
			p := signed(t, cfg, key, nil)
			p.Payload.Authorization.Nonce = "0x" + hex.EncodeToString(make([]byte, 32))
			return p
		}, wantErr: x402.ErrBadSignature},
		// The domain binds the token contract: a signature for another asset fails.
		"fail signed for another asset": {payload: func() x402.Payload {
			c := cfg
			c.Asset = x402.USDCBaseSepolia
			return signed(t, c, key, nil)
		}, wantErr: x402.ErrBadSignature},
		// Malleated (high-s) signatures are refused, as the USDC contract does.
		"fail high s": {payload: func() x402.Payload {
			p := signed(t, cfg, key, nil)
			sig, _ := hex.DecodeString(p.Payload.Signature[2:])
			s := new(big.Int).SetBytes(sig[32:64])
			s.Sub(crypto.S256().Params().N, s)
			copy(sig[32:64], make([]byte, 32))
			s.FillBytes(sig[32:64])
			sig[64] ^= 1
			p.Payload.Signature = "0x" + hex.EncodeToString(sig)
			return p
		}, wantErr: x402.ErrBadSignature},
		"fail bad v": {payload: func() x402.Payload {
			p := signed(t, cfg, key, nil)
			sig, _ := hex.DecodeString(p.Payload.Signature[2:])
			sig[64] = 35
			p.Payload.Signature = "0x" + hex.EncodeToString(sig)
			return p
		}, wantErr: x402.ErrBadSignature},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := cfg
			if tc.cfg != nil {
				c = tc.cfg(c)
			}
			payer, err := c.Verify(tc.payload(), testNow)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Equal(t, crypto.PubkeyToAddress(key.PublicKey), payer)
			}
		})
	}
}
