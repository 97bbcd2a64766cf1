package x402_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/proxy/metering/x402"
)

func TestDecode(t *testing.T) {
	cfg := testConfig()
	good := signed(t, cfg, newKey(t), nil)
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	edit := func(f func(p *x402.Payload)) string {
		p := good
		f(&p)
		return p.Encode()
	}
	tests := map[string]struct {
		header  string
		wantErr error
	}{
		"ok":             {header: good.Encode()},
		"ok unpadded":    {header: strings.TrimRight(good.Encode(), "=")},
		"fail empty":     {header: "", wantErr: x402.ErrMalformed},
		"fail not b64":   {header: "%%%", wantErr: x402.ErrMalformed},
		"fail not json":  {header: b64("nope"), wantErr: x402.ErrMalformed},
		"fail oversized": {header: strings.Repeat("A", 9000), wantErr: x402.ErrMalformed},
		"fail bad from": {header: edit(func(p *x402.Payload) { p.Payload.Authorization.From = "0x12" }),
			wantErr: x402.ErrMalformed},
		"fail negative value": {header: edit(func(p *x402.Payload) { p.Payload.Authorization.Value = "-1" }),
			wantErr: x402.ErrMalformed},
		"fail hex value": {header: edit(func(p *x402.Payload) { p.Payload.Authorization.Value = "0x10" }),
			wantErr: x402.ErrMalformed},
		// 2^256 does not fit a uint256.
		"fail value overflow": {header: edit(func(p *x402.Payload) {
			p.Payload.Authorization.Value = "115792089237316195423570985008687907853269984665640564039457584007913129639936"
		}), wantErr: x402.ErrMalformed},
		"fail short nonce": {header: edit(func(p *x402.Payload) { p.Payload.Authorization.Nonce = "0xabcd" }),
			wantErr: x402.ErrMalformed},
		"fail nonce without 0x": {header: edit(func(p *x402.Payload) {
			p.Payload.Authorization.Nonce = strings.TrimPrefix(p.Payload.Authorization.Nonce, "0x") + "00"
		}), wantErr: x402.ErrMalformed},
		"fail short signature": {header: edit(func(p *x402.Payload) { p.Payload.Signature = "0x1234" }),
			wantErr: x402.ErrMalformed},
		"fail non-hex signature": {header: edit(func(p *x402.Payload) {
			p.Payload.Signature = "0x" + strings.Repeat("zz", 65)
		}), wantErr: x402.ErrMalformed},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p, err := x402.Decode(tc.header)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Equal(t, good, p)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	cfg := testConfig()
	f.Add(x402.Payload{X402Version: 1, Scheme: "exact", Network: "base"}.Encode())
	f.Add(base64.StdEncoding.EncodeToString([]byte(`{"payload":{"authorization":{}}}`)))
	f.Fuzz(func(t *testing.T, header string) {
		p, err := x402.Decode(header)
		if err != nil {
			return
		}
		_, _ = cfg.Verify(p, testNow) // must not panic on any well-formed payload
	})
}
