package nitro

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/veraison/go-cose"
)

func TestValidate(t *testing.T) {
	pki := newTestPKI(t, "trusted")
	other := newTestPKI(t, "other")

	tests := map[string]struct {
		doc     func(t *testing.T) []byte
		nonce   []byte
		cfg     func(c *Config)
		wantErr error
	}{
		"ok tagged": {
			doc: func(t *testing.T) []byte { return pki.sign(t, pki.payload()) },
		},
		"ok untagged": {
			doc: func(t *testing.T) []byte {
				return signWith(t, pki.payload(), pki.leafKey, cose.AlgorithmES384, false)
			},
		},
		"ok optional fields null": {
			doc: func(t *testing.T) []byte {
				p := pki.payload()
				p.PublicKey, p.UserData = nil, nil
				return pki.sign(t, p)
			},
		},
		// The whole chain is self-consistent but ends at a root we do not trust.
		"fail other root": {
			doc:     func(t *testing.T) []byte { return other.sign(t, other.payload()) },
			wantErr: ErrUntrustedChain,
		},
		// A forger may put our root in cabundle; cabundle is not a trust anchor.
		"fail other root with trusted root in cabundle": {
			doc: func(t *testing.T) []byte {
				p := other.payload()
				p.CABundle = [][]byte{pki.root.Raw, other.root.Raw, other.inter.Raw}
				return other.sign(t, p)
			},
			wantErr: ErrUntrustedChain,
		},
		"fail leaf expired at timestamp": {
			doc: func(t *testing.T) []byte {
				p := pki.payload()
				p.Timestamp = uint64(t0.Add(2 * time.Hour).UnixMilli())
				return pki.sign(t, p)
			},
			cfg:     func(c *Config) { c.Now = func() time.Time { return t0.Add(2 * time.Hour) } },
			wantErr: ErrUntrustedChain,
		},
		"fail PCR0 off allowlist": {
			doc: func(t *testing.T) []byte {
				p := pki.payload()
				p.PCRs[0] = sha384("some other image")
				return pki.sign(t, p)
			},
			wantErr: ErrPCRMismatch,
		},
		"fail PCR1 off allowlist": {
			doc:     func(t *testing.T) []byte { return pki.sign(t, pki.payload()) },
			cfg:     func(c *Config) { c.AllowedPCRs[1] = [][]byte{sha384("another kernel")} },
			wantErr: ErrPCRMismatch,
		},
		"fail allowlisted PCR missing": {
			doc: func(t *testing.T) []byte {
				p := pki.payload()
				delete(p.PCRs, 8)
				return pki.sign(t, p)
			},
			cfg:     func(c *Config) { c.AllowedPCRs[8] = [][]byte{make([]byte, pcrSize)} },
			wantErr: ErrPCRMismatch,
		},
		"ok second allowed PCR0 value": {
			doc: func(t *testing.T) []byte { return pki.sign(t, pki.payload()) },
			cfg: func(c *Config) { c.AllowedPCRs[0] = [][]byte{sha384("old image"), testPCR0} },
		},
		// Debug-mode enclaves report zeroed PCRs and are readable by the host.
		"fail debug mode": {
			doc: func(t *testing.T) []byte {
				p := pki.payload()
				p.PCRs[0] = make([]byte, pcrSize)
				return pki.sign(t, p)
			},
			wantErr: ErrDebugMode,
		},
		"fail wrong nonce": {
			doc:     func(t *testing.T) []byte { return pki.sign(t, pki.payload()) },
			nonce:   []byte("a nonce from another handshake!!"),
			wantErr: ErrNonceMismatch,
		},
		"fail document without nonce": {
			doc: func(t *testing.T) []byte {
				p := pki.payload()
				p.Nonce = nil
				return pki.sign(t, p)
			},
			wantErr: ErrNonceMismatch,
		},
		"fail empty expected nonce": {
			doc:     func(t *testing.T) []byte { return pki.sign(t, pki.payload()) },
			nonce:   []byte{},
			wantErr: ErrNonceMismatch,
		},
		"fail old timestamp": {
			doc:     func(t *testing.T) []byte { return pki.sign(t, pki.payload()) },
			cfg:     func(c *Config) { c.Now = func() time.Time { return t0.Add(10 * time.Minute) } },
			wantErr: ErrStale,
		},
		"ok old timestamp within MaxAge": {
			doc: func(t *testing.T) []byte { return pki.sign(t, pki.payload()) },
			cfg: func(c *Config) {
				c.Now = func() time.Time { return t0.Add(10 * time.Minute) }
				c.MaxAge = 15 * time.Minute
			},
		},
		"fail timestamp in the future": {
			doc:     func(t *testing.T) []byte { return pki.sign(t, pki.payload()) },
			cfg:     func(c *Config) { c.Now = func() time.Time { return t0.Add(-5 * time.Minute) } },
			wantErr: ErrStale,
		},
		// The signature covers the payload: any edit must break it.
		"fail tampered payload": {
			doc: func(t *testing.T) []byte {
				return tamper(t, pki.sign(t, pki.payload()), func(p *payload) { p.PCRs[0] = sha384("evil image") })
			},
			cfg:     func(c *Config) { c.AllowedPCRs[0] = [][]byte{sha384("evil image")} },
			wantErr: ErrBadSignature,
		},
		"fail signed by key other than leaf": {
			doc: func(t *testing.T) []byte {
				return signWith(t, pki.payload(), newP384(t), cose.AlgorithmES384, true)
			},
			wantErr: ErrBadSignature,
		},
		"fail ES256 header": {
			doc: func(t *testing.T) []byte {
				k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
				require.NoError(t, err)
				return signWith(t, pki.payload(), k, cose.AlgorithmES256, true)
			},
			wantErr: ErrMalformed,
		},
		"fail digest SHA256": {
			doc: func(t *testing.T) []byte {
				p := pki.payload()
				p.Digest = "SHA256"
				return pki.sign(t, p)
			},
			wantErr: ErrMalformed,
		},
		"fail truncated": {
			doc: func(t *testing.T) []byte {
				d := pki.sign(t, pki.payload())
				return d[:len(d)/2]
			},
			wantErr: ErrMalformed,
		},
		"fail trailing bytes": {
			doc:     func(t *testing.T) []byte { return append(pki.sign(t, pki.payload()), 0x00) },
			wantErr: ErrMalformed,
		},
		"fail garbage": {
			doc:     func(*testing.T) []byte { return []byte("not an attestation document") },
			wantErr: ErrMalformed,
		},
		"fail empty": {
			doc:     func(*testing.T) []byte { return nil },
			wantErr: ErrMalformed,
		},
		"fail oversized": {
			doc:     func(*testing.T) []byte { return bytes.Repeat([]byte{0x84}, maxDocumentSize+1) },
			wantErr: ErrMalformed,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			cfg := pki.testConfig()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			v, err := NewValidator(cfg)
			require.NoError(t, err)
			nonce := testNonce
			if tc.nonce != nil {
				nonce = tc.nonce
			}
			res, err := v.Validate(context.Background(), tc.doc(t), nonce)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr != nil {
				return
			}
			require.Equal(t, "i-0123456789abcdef0-enc0123456789abcdef", res.ModuleID)
			require.Equal(t, t0, res.Timestamp)
			require.Equal(t, testPCR0, res.PCRs[0])
			require.False(t, res.Simulated)
		})
	}
}

// tamper re-encodes doc's payload after edit, keeping the old signature.
func tamper(t *testing.T, doc []byte, edit func(*payload)) []byte {
	t.Helper()
	d, err := parseDocument(doc)
	require.NoError(t, err)
	edit(&d.payload)
	body, err := payloadEncode(d.payload)
	require.NoError(t, err)
	d.msg.Payload = body
	out, err := d.msg.MarshalCBOR()
	require.NoError(t, err)
	return out
}

func TestValidateSimulatedFlag(t *testing.T) {
	pki := newTestPKI(t, "sim")
	cfg := pki.testConfig()
	cfg.SimulatedRoots = true
	res, err := VerifyDocument(context.Background(), pki.sign(t, pki.payload()), testNonce, cfg)
	require.NoError(t, err)
	require.True(t, res.Simulated)
}

func TestValidateCanceledContext(t *testing.T) {
	pki := newTestPKI(t, "ctx")
	v, err := NewValidator(pki.testConfig())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = v.Validate(ctx, pki.sign(t, pki.payload()), testNonce)
	require.ErrorIs(t, err, context.Canceled)
}

func TestValidateConcurrent(t *testing.T) {
	pki := newTestPKI(t, "concurrent")
	v, err := NewValidator(pki.testConfig())
	require.NoError(t, err)
	doc := pki.sign(t, pki.payload())
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			_, err := v.Validate(context.Background(), doc, testNonce)
			errs <- err
		}()
	}
	for range 8 {
		require.NoError(t, <-errs)
	}
}

func TestVerifyDocumentBadConfig(t *testing.T) {
	_, err := VerifyDocument(context.Background(), nil, testNonce, Config{Roots: []*x509.Certificate{nil}})
	require.ErrorIs(t, err, ErrInvalidConfig)
}
