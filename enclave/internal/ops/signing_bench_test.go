package ops

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/attestation/sim"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/keyvault/pkcs11"
	"github.com/opencustody/ocv/keyvault/pkcs11/softhsmtest"
)

// BenchmarkSignIntentPersonal measures one personal_sign in the enclave on
// SoftHSM2, beside BenchmarkRawSign, the HSM signature alone: the gap is
// the enclave's own work (token, sealed set, digest, recovery id).
func BenchmarkSignIntentPersonal(b *testing.B) {
	f := softhsmFixture(b)
	tok, _ := agentWithKey(b, f)
	set, mac := f.sealGuardrails(b, map[string]any{"message_signing_enabled": true})
	req := &wire.SignIntentRequest{Token: tok, OrgID: signOrg, AgentID: signAgent, Chain: "ethereum", KeyVersion: 1,
		Kind: wire.IntentPersonalSign, Payload: []byte("bench"), Context: signContext(b), GuardrailSet: set, GuardrailMAC: mac}
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			if _, err := f.h.SignIntent(context.Background(), req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("c16", func(b *testing.B) {
		parallel16(b, func() error { _, err := f.h.SignIntent(context.Background(), req); return err })
	})
}

func BenchmarkRawSign(b *testing.B) {
	f := softhsmFixture(b)
	agentWithKey(b, f)
	ref, err := signingKeyRef(signOrg, signAgent, "ethereum", 1)
	require.NoError(b, err)
	s, err := f.h.ks.Signer(context.Background(), ref)
	require.NoError(b, err)
	digest := make([]byte, 32)
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.SignDigest(context.Background(), digest); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("c16", func(b *testing.B) {
		parallel16(b, func() error { _, err := s.SignDigest(context.Background(), digest); return err })
	})
}

// parallel16 runs op from sixteen goroutines (the c=16 of make bench) on
// the key store's default session pool.
func parallel16(b *testing.B, op func() error) {
	b.SetParallelism(max(1, 16/runtime.GOMAXPROCS(0)))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := op(); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// softhsmFixture is newFixture on a private SoftHSM2 token.
func softhsmFixture(b *testing.B) *fixture {
	b.Helper()
	ks, err := pkcs11.New(context.Background(), softhsmtest.New(b))
	require.NoError(b, err)
	b.Cleanup(func() { _ = ks.Close() })
	iss, err := sim.New(sim.Config{Dir: b.TempDir(), PCRs: map[uint][]byte{0: testPCR0}})
	require.NoError(b, err)
	priv, err := ecdh.X25519().GenerateKey(rand.Reader)
	require.NoError(b, err)
	h, err := New(context.Background(), ks, iss, priv.PublicKey().Bytes(), Config{Issuer: "i", TokenLifetimes: wire.DefaultTokenLifetimes(), Mode: wire.ModeSimulated})
	require.NoError(b, err)
	b.Cleanup(h.Close)
	return &fixture{h: h}
}
