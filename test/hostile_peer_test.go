package test

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/client"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/test/stack"
)

// TestHostileProxyPeerWithoutIdentity: a process that reaches the enclave's
// socket and completes the attested handshake, but cannot prove the proxy's
// identity (no proof, another key, or the real proxy's proof for another
// session), is served nothing: its first operation is refused and the
// connection closed. The real proxy, and a peer holding its key, are served.
func TestHostileProxyPeerWithoutIdentity(t *testing.T) {
	s := stack.Start(t)
	s.WaitAttested()
	health, err := (&wire.HealthRequest{}).Append(nil)
	require.NoError(t, err)
	claims, err := (&wire.SignJWTRequest{Claims: []byte(`{"sub":"someone","role":"owner"}`)}).Append(nil)
	require.NoError(t, err)
	kek, err := (&wire.CreateKEKRequest{OrgID: "org", VaultID: "vault"}).Append(nil)
	require.NoError(t, err)

	t.Run("no proof", func(t *testing.T) {
		for name, tc := range map[string]struct {
			op   wire.Op
			body []byte
		}{"health": {wire.OpHealth, health}, "sign claims": {wire.OpSignJWT, claims}, "create kek": {wire.OpCreateKEK, kek}} {
			t.Run(name, func(t *testing.T) {
				sess, err := enclaveSessionWithoutIdentity(t, s)
				require.NoError(t, err, "the handshake itself is public")
				code, resp, err := sess.Call(tc.op, tc.body)
				require.NoError(t, err)
				require.Equal(t, wire.Unauthenticated, code)
				require.Empty(t, resp)
				_, _, err = sess.Call(wire.OpHealth, health)
				require.ErrorIs(t, err, wire.ErrUnavailable, "the enclave hung up")
			})
		}
	})

	t.Run("another key", func(t *testing.T) {
		other, err := client.GenerateIdentity()
		require.NoError(t, err)
		_, err = enclaveSessionWithoutIdentity(t, s, client.WithIdentity(other))
		require.ErrorIs(t, err, wire.ErrUnauthenticated)
	})

	t.Run("the proxy's proof for another session", func(t *testing.T) {
		a, err := enclaveSessionWithoutIdentity(t, s)
		require.NoError(t, err)
		b, err := enclaveSessionWithoutIdentity(t, s)
		require.NoError(t, err)
		tr := a.Transcript()
		proof, err := s.ProxyIdentity.Sign(&tr)
		require.NoError(t, err)
		body, err := proof.Append(nil)
		require.NoError(t, err)
		code, _, err := b.Call(wire.OpAttest, body)
		require.NoError(t, err)
		require.Equal(t, wire.Unauthenticated, code)
		_, _, err = b.Call(wire.OpHealth, health)
		require.ErrorIs(t, err, wire.ErrUnavailable)
		// The same proof on its own session is what the proxy sends.
		code, _, err = a.Call(wire.OpAttest, body)
		require.NoError(t, err)
		require.Equal(t, wire.OK, code)
		code, _, err = a.Call(wire.OpHealth, health)
		require.NoError(t, err)
		require.Equal(t, wire.OK, code)
	})

	t.Run("the proxy's key", func(t *testing.T) {
		code, _, err := enclaveSession(t, s).Call(wire.OpHealth, health)
		require.NoError(t, err)
		require.Equal(t, wire.OK, code)
		resp, err := s.HTTP.Get(s.BaseURL + "/v1/health/hsm")
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, "the real proxy is served")
	})

	logs := s.Logs()
	require.Contains(t, logs, "enclave refused an unauthenticated peer")
	require.Contains(t, logs, "operation before the peer proof")
	require.Contains(t, logs, "unknown proxy identity key")
}

// TestHostileProxyPeerProxyWithAnotherKey: a proxy started with an identity
// key the enclave was not given never gets an attested channel.
func TestHostileProxyPeerProxyWithAnotherKey(t *testing.T) {
	other, err := client.GenerateIdentity()
	require.NoError(t, err)
	keyFile := filepath.Join(t.TempDir(), "other.key")
	require.NoError(t, other.WriteFile(keyFile))
	s := stack.Start(t, stack.WithProxyEnv("OCV_PROXY_IDENTITY_KEY="+keyFile))
	// Not a timing assertion: the bound only keeps a broken test from hanging.
	require.Eventually(t, func() bool {
		return strings.Contains(s.Logs(), "unknown proxy identity key")
	}, 60*time.Second, 50*time.Millisecond, "the proxy never tried the enclave")
	resp, err := s.HTTP.Get(s.BaseURL + "/v1/health/hsm")
	require.NoError(t, err)
	resp.Body.Close()
	require.NotEqual(t, http.StatusOK, resp.StatusCode)
}
