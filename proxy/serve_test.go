package proxy

import (
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/proxy/edgetls"
)

func TestServeShutsDownWhenCtxEnds(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	tc, _, err := edgetls.DevTLS(t.TempDir(), []string{"127.0.0.1"})
	require.NoError(t, err)
	inFlight, release := make(chan struct{}), make(chan struct{})
	hs := NewHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		close(inFlight)
		<-release
		w.WriteHeader(http.StatusNoContent)
	}), tc, log)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, hs, ln, log) }()

	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // a test server
	status := make(chan int, 1)
	go func() {
		resp, err := client.Get("https://" + ln.Addr().String() + "/")
		if err != nil {
			status <- 0
			return
		}
		_ = resp.Body.Close()
		status <- resp.StatusCode
	}()
	<-inFlight
	cancel()
	select {
	case <-served:
		t.Fatal("Serve returned before the request in flight finished")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	require.Equal(t, http.StatusNoContent, <-status, "the request in flight is finished")
	require.NoError(t, <-served)
	_, err = net.Dial("tcp", ln.Addr().String())
	require.Error(t, err, "the listener is closed")
}

func TestServeReportsAFailedListener(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	require.NoError(t, ln.Close())
	err = Serve(context.Background(), NewHTTPServer(http.NotFoundHandler(), &tls.Config{}, log), ln, log)
	require.ErrorContains(t, err, "serving")
}
