package chainrpc

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"
)

// closedPort returns a loopback port nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// echoServer answers every request with status and a body that repeats the
// request URL back, like a hostile or careless provider.
func echoServer(t *testing.T, status int, jsonErr bool) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		full := "http://" + r.Host + r.URL.String()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if jsonErr {
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"bad key in `+full+`"}}`)
			return
		}
		_, _ = io.WriteString(w, "upstream failed for "+full)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestErrorsNeverContainURL(t *testing.T) {
	const path = "/v2/SECRETAPIKEY123?apikey=QUERYSECRET"
	tests := map[string]struct {
		base    string
		wantErr error
	}{
		"fail connection refused": {base: "http://" + closedPort(t), wantErr: ErrUnavailable},
		"fail http 500 echoing url": { // adversarial: the body repeats the URL
			base: echoServer(t, http.StatusInternalServerError, false), wantErr: ErrUnavailable,
		},
		"fail json-rpc error echoing url": { // adversarial: the node's message repeats the URL
			base: echoServer(t, http.StatusOK, true), wantErr: ErrNode,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			rpcURL := tc.base + path
			c := dialClient(t, rpcURL, Config{Retries: -1})
			_, err := c.ChainID(context.Background())
			require.ErrorIs(t, err, tc.wantErr)
			assertNoURL(t, err.Error(), rpcURL)

			_, err = c.SendRawTransaction(context.Background(), signedRaw(t))
			require.Error(t, err)
			assertNoURL(t, err.Error(), rpcURL)

			_, err = c.Simulate(context.Background(), common.Address{}, make([]ethereumCallMsg, 1))
			require.Error(t, err)
			assertNoURL(t, err.Error(), rpcURL)
		})
	}
}

func TestDialErrorsNeverContainURL(t *testing.T) {
	tests := map[string]string{
		"fail ipc path":       "/tmp/geth.ipc?key=SECRETAPIKEY123",
		"fail unknown scheme": "ftp://user:SECRETAPIKEY123@host/x",
		"fail unparsable":     "http://[::1%SECRETAPIKEY123/",
		"fail no host":        "http:///SECRETAPIKEY123",
		"fail control in url": "http://host/\x7fSECRETAPIKEY123",
	}
	for name, rpcURL := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := NewPool(Config{}).Client(context.Background(), rpcURL)
			require.ErrorIs(t, err, ErrInvalidURL)
			assertNoURL(t, err.Error(), rpcURL)
		})
	}
}

func assertNoURL(t *testing.T, msg, rpcURL string) {
	t.Helper()
	require.NotContains(t, msg, rpcURL)
	require.NotContains(t, msg, "SECRETAPIKEY123")
	require.NotContains(t, msg, "QUERYSECRET")
	if host := strings.TrimPrefix(strings.SplitN(rpcURL, "/v2", 2)[0], "http://"); strings.Contains(host, ":") {
		require.NotContains(t, msg, host)
	}
}

// flakyServer fails the first `failures` requests with 503, then forwards to
// nodeURL; it counts every request.
func flakyServer(t *testing.T, failures int64, answer string) (string, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= failures {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answer)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &calls
}

func TestRetries(t *testing.T) {
	const chainID = `{"jsonrpc":"2.0","id":1,"result":"0x539"}`
	t.Run("reads retry transport errors", func(t *testing.T) {
		u, calls := flakyServer(t, 2, chainID)
		c := dialClient(t, u, Config{Retries: 2})
		id, err := c.ChainID(context.Background())
		require.NoError(t, err)
		require.Equal(t, int64(1337), id.Int64())
		require.Equal(t, int64(3), calls.Load())
	})
	t.Run("fail reads give up after Retries", func(t *testing.T) {
		u, calls := flakyServer(t, 10, chainID)
		c := dialClient(t, u, Config{Retries: 1})
		_, err := c.ChainID(context.Background())
		require.ErrorIs(t, err, ErrUnavailable)
		require.Equal(t, int64(2), calls.Load())
	})
	t.Run("fail sends are never retried", func(t *testing.T) {
		u, calls := flakyServer(t, 10, chainID)
		c := dialClient(t, u, Config{Retries: 5})
		_, err := c.SendRawTransaction(context.Background(), signedRaw(t))
		require.ErrorIs(t, err, ErrUnavailable)
		require.Equal(t, int64(1), calls.Load())
	})
	t.Run("fail json-rpc errors are not retried", func(t *testing.T) {
		u, calls := flakyServer(t, 0, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"nope"}}`)
		c := dialClient(t, u, Config{Retries: 5})
		_, err := c.ChainID(context.Background())
		require.ErrorIs(t, err, ErrNode)
		require.Equal(t, int64(1), calls.Load())
	})
}

func TestTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers
	}))
	t.Cleanup(srv.Close)
	c := dialClient(t, srv.URL+"/SECRETAPIKEY123", Config{Timeout: 1, Retries: -1})
	_, err := c.ChainID(context.Background())
	require.ErrorIs(t, err, ErrTimeout)
	assertNoURL(t, err.Error(), srv.URL+"/SECRETAPIKEY123")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = c.BalanceAt(ctx, common.Address{})
	require.ErrorIs(t, err, context.Canceled)
}
