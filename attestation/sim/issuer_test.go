package sim

import (
	"bytes"
	"context"
	"crypto/x509"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/attestation/nitro"
)

func TestIssueValidates(t *testing.T) {
	dir := t.TempDir()
	iss := newIssuerIn(t, Config{Dir: dir})
	// Issuers sharing dir share the CA, so only the property under test differs.
	otherImage := newIssuerIn(t, Config{Dir: dir, PCRs: map[uint][]byte{0: bytes.Repeat([]byte{1}, pcrSize)}})
	lagging := newIssuerIn(t, Config{Dir: dir, Now: func() time.Time { return time.Now().Add(-time.Hour) }})
	otherRoot := newTestIssuer(t, nil).Root()

	tests := map[string]struct {
		doc     func(t *testing.T) []byte
		nonce   []byte
		roots   []*x509.Certificate
		wantErr error
	}{
		"ok": {doc: issue(iss)},
		"fail different root": {
			doc:     issue(iss),
			roots:   []*x509.Certificate{otherRoot},
			wantErr: nitro.ErrUntrustedChain,
		},
		"fail PCR0 off allowlist": {doc: issue(otherImage), wantErr: nitro.ErrPCRMismatch},
		"fail wrong nonce":        {doc: issue(iss), nonce: []byte("some other nonce"), wantErr: nitro.ErrNonceMismatch},
		"fail old timestamp":      {doc: issue(lagging), wantErr: nitro.ErrStale},
		// A flipped byte in the payload keeps the CBOR valid but breaks the signature.
		"fail tampered payload": {
			doc: func(t *testing.T) []byte {
				d := issue(iss)(t)
				i := bytes.Index(d, []byte(defaultModuleID))
				require.Positive(t, i)
				d[i] ^= 0x20 // "ocv-simulator" → "Ocv-simulator"
				return d
			},
			wantErr: nitro.ErrBadSignature,
		},
		"fail truncated": {
			doc:     func(t *testing.T) []byte { d := issue(iss)(t); return d[:len(d)-10] },
			wantErr: nitro.ErrMalformed,
		},
		"fail garbage": {
			doc:     func(*testing.T) []byte { return []byte{0xd2, 0x84, 0xff} },
			wantErr: nitro.ErrMalformed,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			cfg := nitro.Config{
				Roots:          []*x509.Certificate{iss.Root()},
				AllowedPCRs:    map[uint][][]byte{0: {defaultPCR(0)}},
				SimulatedRoots: true,
			}
			if tc.roots != nil {
				cfg.Roots = tc.roots
			}
			nonce := testNonce
			if tc.nonce != nil {
				nonce = tc.nonce
			}
			res, err := nitro.VerifyDocument(t.Context(), tc.doc(t), nonce, cfg)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.True(t, res.Simulated)
				require.Equal(t, defaultModuleID, res.ModuleID)
				require.Equal(t, testKey, res.PublicKey)
				require.Equal(t, defaultPCR(0), res.PCRs[0])
				require.Len(t, res.PCRs, numPCRs)
			}
		})
	}
}

func TestIssueInput(t *testing.T) {
	iss := newTestIssuer(t, nil)
	tests := map[string]struct {
		publicKey, nonce []byte
		wantErr          error
	}{
		"ok":                 {publicKey: testKey, nonce: testNonce},
		"ok max sizes":       {publicKey: make([]byte, maxPublicKey), nonce: make([]byte, maxNonce)},
		"fail big key":       {publicKey: make([]byte, maxPublicKey+1), nonce: testNonce, wantErr: ErrInputTooLarge},
		"fail big nonce":     {publicKey: testKey, nonce: make([]byte, maxNonce+1), wantErr: ErrInputTooLarge},
		"ok no key no nonce": {},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			doc, err := iss.Issue(t.Context(), tc.publicKey, tc.nonce)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.NotEmpty(t, doc)
			}
		})
	}
}

func TestIssueCanceled(t *testing.T) {
	iss := newTestIssuer(t, nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := iss.Issue(ctx, testKey, testNonce)
	require.ErrorIs(t, err, context.Canceled)
}

// The signing certificate is short-lived, like Nitro's, and replaced in time.
func TestLeafRotation(t *testing.T) {
	clock := newFakeClock(time.Now())
	iss := newTestIssuer(t, clock.Now)
	v := validatorFor(t, iss.Root(), clock.Now)

	first := iss.leaf
	for range 3 {
		doc, err := iss.Issue(t.Context(), testKey, testNonce)
		require.NoError(t, err)
		_, err = v.Validate(t.Context(), doc, testNonce)
		require.NoError(t, err)
		clock.Advance(2 * time.Hour)
	}
	require.NotEqual(t, first.SerialNumber, iss.leaf.SerialNumber)
}

func TestIssueConcurrent(t *testing.T) {
	clock := newFakeClock(time.Now())
	iss := newTestIssuer(t, clock.Now)
	// Other goroutines move the clock between Issue and Validate.
	v, err := nitro.NewValidator(nitro.Config{
		Roots:       []*x509.Certificate{iss.Root()},
		AllowedPCRs: map[uint][][]byte{0: {defaultPCR(0)}},
		Now:         clock.Now,
		MaxAge:      24 * time.Hour,
	})
	require.NoError(t, err)
	errs := make(chan error, 16)
	for i := range 16 {
		go func() {
			if i%4 == 0 {
				clock.Advance(time.Hour) // forces leaf rotation under load
			}
			doc, err := iss.Issue(t.Context(), testKey, testNonce)
			if err == nil {
				_, err = v.Validate(t.Context(), doc, testNonce)
			}
			errs <- err
		}()
	}
	for range 16 {
		require.NoError(t, <-errs)
	}
}

func newIssuerIn(t *testing.T, cfg Config) *Issuer {
	t.Helper()
	iss, err := New(cfg)
	require.NoError(t, err)
	return iss
}

func issue(iss *Issuer) func(t *testing.T) []byte {
	return func(t *testing.T) []byte {
		doc, err := iss.Issue(t.Context(), testKey, testNonce)
		require.NoError(t, err)
		return doc
	}
}
