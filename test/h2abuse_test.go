package test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/http2"

	"github.com/opencustody/ocv/test/h2flood"
	"github.com/opencustody/ocv/test/stack"
)

// TestH2RapidReset: a connection that opens and resets HTTP/2 streams in a
// loop (rapid reset) is ended by the proxy with GOAWAY (or closed) after its
// reset budget, while another client's reads keep succeeding; the requests
// cancelled on the way write no ERROR line.
func TestH2RapidReset(t *testing.T) {
	// The reader calls through a trusted proxy header, so it is another
	// client address than the flood's.
	s := stack.Start(t, stack.WithProxyEnv("OCV_TRUSTED_PROXIES=127.0.0.1/32"))
	attacker := s.SignUp("h2-attacker@example.com")
	floodVault := s.CreateVault(attacker.Token, "flood")
	user := s.SignUp("h2-reader@example.com")
	vault := s.CreateVault(user.Token, "calm")
	secretPath := "/v1/vaults/" + vault + "/secrets/app/key"
	r := s.Do("PUT", secretPath, user.Token, map[string]any{"type": "api_key", "value": "calm-value"})
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))

	base, err := url.Parse(s.BaseURL)
	require.NoError(t, err)
	tr, ok := s.HTTP.Transport.(*http.Transport)
	require.True(t, ok)
	target := h2flood.Target{Addr: base.Host, TLS: tr.TLSClientConfig,
		Path: "/v1/vaults/" + floodVault + "/secrets/anything", Token: attacker.Token}

	ctx, stopReader := context.WithCancel(stack.Context(t))
	defer stopReader()
	var wg sync.WaitGroup
	var reads int
	var failures []string
	wg.Go(func() {
		for ctx.Err() == nil {
			req, err := http.NewRequest("GET", s.BaseURL+secretPath, nil)
			if err != nil {
				failures = append(failures, err.Error())
				return
			}
			req.Header.Set("Authorization", "Bearer "+user.Token)
			req.Header.Set("X-Forwarded-For", "198.51.100.7")
			resp, err := s.HTTP.Do(req)
			reads++
			if err != nil {
				failures = append(failures, err.Error())
				continue
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				failures = append(failures, resp.Status)
			}
		}
	})
	// Requests this client gives up on mid-way, over HTTP/1.1.
	wg.Go(func() {
		for i := range 40 {
			rctx, cancel := context.WithTimeout(ctx, time.Duration(1+i%10)*time.Millisecond)
			req, err := http.NewRequestWithContext(rctx, "GET", s.BaseURL+"/v1/vaults/"+floodVault+"/secrets/anything", nil)
			if err == nil {
				req.Header.Set("Authorization", "Bearer "+attacker.Token)
				if resp, err := s.HTTP.Do(req); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
				}
			}
			cancel()
		}
	})

	// The flood would go on for 200,000 streams; the proxy ends each
	// connection long before.
	for i := range 3 {
		res, err := h2flood.Conn(ctx, target, 200_000)
		require.NoError(t, err)
		require.True(t, res.GoAway || res.Closed, "flood %d: the proxy ends the connection (%+v)", i, res)
		require.Less(t, res.Resets, 200_000, "flood %d", i)
		if res.GoAway {
			require.Equal(t, http2.ErrCodeEnhanceYourCalm, res.Code, "flood %d", i)
		}
	}
	stopReader()
	wg.Wait()
	require.Positive(t, reads, "the other client was served during the flood")
	require.Empty(t, failures, "the other client's reads succeed during the flood")

	logs, err := os.ReadFile(filepath.Join(s.Dir, "proxy.log"))
	require.NoError(t, err)
	for line := range strings.SplitSeq(string(logs), "\n") {
		require.NotContains(t, line, `"level":"ERROR"`, "no ERROR line for a cancelled request")
	}
	require.Contains(t, string(logs), "http2 connection ended: too many stream resets", "the proxy logs the connections it ended")
}
