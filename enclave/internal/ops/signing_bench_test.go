package ops

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
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
	b.ResetTimer()
	for b.Loop() {
		if _, err := f.h.SignIntent(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRawSign(b *testing.B) {
	f := softhsmFixture(b)
	agentWithKey(b, f)
	ref, err := signingKeyRef(signOrg, signAgent, "ethereum", 1)
	require.NoError(b, err)
	s, err := f.h.ks.Signer(context.Background(), ref)
	require.NoError(b, err)
	digest := make([]byte, 32)
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.SignDigest(context.Background(), digest); err != nil {
			b.Fatal(err)
		}
	}
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
