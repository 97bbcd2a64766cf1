package ops

import (
	"bytes"
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"crypto/x509"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/attestation/nitro"
	"github.com/opencustody/ocv/attestation/sim"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/keyvault/memstore"
)

var testPCR0 = bytes.Repeat([]byte{0x42}, 48)

type fixture struct {
	h          *Handler
	ks         *memstore.Store
	validator  *nitro.Validator
	channelPub []byte
	// guardrailVersion is the last guardrail-set version sealed.
	guardrailVersion uint64
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	ks, err := memstore.New()
	require.NoError(t, err)
	t.Cleanup(func() { _ = ks.Close() })
	iss, err := sim.New(sim.Config{Dir: t.TempDir(), PCRs: map[uint][]byte{0: testPCR0}})
	require.NoError(t, err)
	v, err := nitro.NewValidator(nitro.Config{
		Roots:          []*x509.Certificate{iss.Root()},
		AllowedPCRs:    map[uint][][]byte{0: {testPCR0}},
		SimulatedRoots: true,
	})
	require.NoError(t, err)
	priv, err := ecdh.X25519().GenerateKey(rand.Reader)
	require.NoError(t, err)
	pub := priv.PublicKey().Bytes()
	h, err := New(context.Background(), ks, iss, pub, Config{Issuer: "i", TokenLifetimes: wire.DefaultTokenLifetimes(), Mode: wire.ModeSimulated, DEKCacheSize: 16})
	require.NoError(t, err)
	t.Cleanup(h.Close)
	return &fixture{h: h, ks: ks, validator: v, channelPub: pub}
}

// call runs one op through Handle with encoded bodies, as the server does.
func (f *fixture) call(t testing.TB, op wire.Op, req, resp wire.Message) error {
	t.Helper()
	body, err := req.Append(nil)
	require.NoError(t, err)
	var sc Scratch
	out, err := f.h.Handle(context.Background(), op, body, nil, &sc)
	if err != nil {
		return err
	}
	require.NoError(t, resp.Decode(out))
	return nil
}
