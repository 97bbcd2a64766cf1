package test

import (
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/attestation/nitro"
	"github.com/opencustody/ocv/attestation/sim"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/test/stack"
)

func TestEnclaveDownFailsClosedAndRecovers(t *testing.T) {
	s := stack.Start(t)
	s.WaitAttested()
	me := s.SignUp("restart@example.com")
	vault := s.CreateVault(me.Token, "v")
	path := "/v1/vaults/" + vault + "/secrets/k"
	require.Equal(t, http.StatusCreated, s.Do("PUT", path, me.Token, map[string]any{"type": "api_key", "value": "e2e-value-restart"}).Status)

	s.KillEnclave()
	r := s.Do("GET", path, me.Token, nil)
	require.Equal(t, http.StatusServiceUnavailable, r.Status, string(r.Body))
	require.Equal(t, "enclave_unavailable", r.JSON(t)["type"])
	require.NotContains(t, string(r.Body), "e2e-value")
	r = s.Do("PUT", path, me.Token, map[string]any{"type": "api_key", "value": "e2e-value-while-down"})
	require.Equal(t, http.StatusServiceUnavailable, r.Status, string(r.Body))
	r = s.Do("GET", "/v1/health/hsm", "", nil)
	require.Equal(t, http.StatusServiceUnavailable, r.Status)
	h := r.JSON(t)
	require.Equal(t, "unavailable", h["status"])
	require.NotEmpty(t, h["reason"])

	// The proxy reconnects and re-attests by itself.
	s.StartEnclave()
	s.WaitAttested()
	r = s.Do("GET", path, me.Token, nil)
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	require.Equal(t, "e2e-value-restart", r.JSON(t)["value"])
}

func TestAttestationDocument(t *testing.T) {
	s := stack.Start(t)
	s.WaitAttested()
	nonce := make([]byte, 32)
	_, _ = rand.Read(nonce)
	r := s.Do("GET", "/v1/attestation?nonce="+hex.EncodeToString(nonce), "", nil)
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	m := r.JSON(t)
	require.Equal(t, true, m["simulated"])
	doc, err := base64.StdEncoding.DecodeString(m["document"].(string))
	require.NoError(t, err)

	root, err := sim.LoadRoot(s.RootPath)
	require.NoError(t, err)
	pcr0, _ := hex.DecodeString(s.PCR0)
	good := nitro.Config{Roots: []*x509.Certificate{root}, SimulatedRoots: true, AllowedPCRs: map[uint][][]byte{0: {pcr0}}}
	ctx := stack.Context(t)

	res, err := nitro.VerifyDocument(ctx, doc, nonce, good)
	require.NoError(t, err)
	require.Len(t, res.PublicKey, 32, "the document binds the enclave's channel key")

	otherDir := t.TempDir()
	other, err := sim.New(sim.Config{Dir: otherDir, PCRs: map[uint][]byte{0: pcr0}})
	require.NoError(t, err)
	_ = other
	otherRoot, err := sim.LoadRoot(sim.RootPath(otherDir))
	require.NoError(t, err)

	tests := map[string]struct {
		cfg     nitro.Config
		nonce   []byte
		wantErr error
	}{
		"signed by another root": {cfg: nitro.Config{Roots: []*x509.Certificate{otherRoot}, SimulatedRoots: true,
			AllowedPCRs: good.AllowedPCRs}, nonce: nonce, wantErr: nitro.ErrUntrustedChain},
		"the AWS root": {cfg: nitro.Config{AllowedPCRs: good.AllowedPCRs}, nonce: nonce, wantErr: nitro.ErrUntrustedChain},
		"PCR0 off the allowlist": {cfg: nitro.Config{Roots: good.Roots, SimulatedRoots: true,
			AllowedPCRs: map[uint][][]byte{0: {make48(0xab)}}}, nonce: nonce, wantErr: nitro.ErrPCRMismatch},
		// A stale nonce: a document fetched for an earlier challenge.
		"stale nonce": {cfg: good, nonce: []byte("an earlier challenge, replayed.."), wantErr: nitro.ErrNonceMismatch},
		// The document is only valid for MaxAge.
		"too old": {cfg: nitro.Config{Roots: good.Roots, SimulatedRoots: true, AllowedPCRs: good.AllowedPCRs,
			Now: func() time.Time { return time.Now().Add(time.Hour) }}, nonce: nonce, wantErr: nitro.ErrStale},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := nitro.VerifyDocument(ctx, doc, tc.nonce, tc.cfg)
			require.ErrorIs(t, err, tc.wantErr)
		})
	}

	t.Run("ocv attest verify", func(t *testing.T) {
		f := filepath.Join(t.TempDir(), "att.json")
		require.NoError(t, os.WriteFile(f, r.Body, 0o600))
		out, err := runOCV(t, "attest", "verify", "--document", f, "--nonce", hex.EncodeToString(nonce), "--root", s.RootPath, "--pcr0", s.PCR0)
		require.NoError(t, err, out)
		require.Contains(t, out, "ok: document verified")
		out, err = runOCV(t, "attest", "verify", "--document", f, "--nonce", hex.EncodeToString(nonce), "--root", s.RootPath, "--pcr0", hex.EncodeToString(make48(1)))
		require.Error(t, err)
		require.Contains(t, out, "rejected")
	})
}

func make48(b byte) []byte { return []byte(strings.Repeat(string([]byte{b}), 48)) }

func TestProxyRefusesAnEnclaveOffTheAllowlist(t *testing.T) {
	s := stack.Start(t, stack.WithProxyEnv("OCV_ATTESTATION_PCR0="+hex.EncodeToString(make48(0x42))))
	r := s.Do("GET", "/v1/health/hsm", "", nil)
	require.Equal(t, http.StatusServiceUnavailable, r.Status)
	require.Contains(t, strings.ToLower(r.JSON(t)["reason"].(string)), "pcr")
	// No identity operation is served: signing up needs the enclave to seal
	// the new organization and its owner.
	r = s.Do("POST", "/v1/auth/signup", "", map[string]string{"email": "x@example.com", "password": "long enough"})
	require.Equal(t, http.StatusServiceUnavailable, r.Status, string(r.Body))
	require.Equal(t, "enclave_unavailable", r.JSON(t)["type"])
}

func TestEnclaveRefusesReplayedFrames(t *testing.T) {
	s := stack.Start(t)
	s.WaitAttested()
	sess := enclaveSession(t, s)

	code, _, err := sess.Call(wire.OpHealth, nil)
	require.NoError(t, err)
	require.Equal(t, wire.OK, code)
	frame := sess.LastRequestFrame()
	code, err = sess.SendRawFrame(frame)
	require.NoError(t, err)
	require.Equal(t, wire.Replay, code, "a replayed MAC must be refused")

	// A frame MAC'd with a timestamp outside the 30 s window is refused.
	stale, err := sess.Frame(wire.OpHealth, nil, time.Now().Add(-time.Minute))
	require.NoError(t, err)
	code, err = sess.SendRawFrame(stale)
	require.NoError(t, err)
	require.Equal(t, wire.Stale, code)

	// A frame whose MAC does not match is refused.
	fresh, err := sess.Frame(wire.OpHealth, nil, time.Now())
	require.NoError(t, err)
	fresh[40] ^= 0x01 // the first byte of the header's MAC
	code, err = sess.SendRawFrame(fresh)
	require.NoError(t, err)
	require.Equal(t, wire.Unauthenticated, code)
}
