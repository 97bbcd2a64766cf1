package webhooks

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeResolver answers every name from a fixed table, like a DNS server an
// attacker controls.
type fakeResolver map[string][]netip.Addr

func (r fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := r[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// receiver is a test webhook receiver on 127.0.0.1 that counts requests.
func receiver(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func ok(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }

func post(t *testing.T, c *http.Client, u string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, u, nil)
	require.NoError(t, err)
	resp, err := c.Do(req)
	if err == nil {
		t.Cleanup(func() { _ = resp.Body.Close() })
	}
	return resp, err
}

func TestClientRefusesRebindingAtConnect(t *testing.T) {
	srv, hits := receiver(t, ok)
	port := mustURL(t, srv.URL).Port()
	// The name looks public and passes ValidateURL; its DNS answer does not.
	r := fakeResolver{
		"rebind.example.com": {netip.MustParseAddr("127.0.0.1")},
		"mixed.example.com":  {netip.MustParseAddr("10.0.0.5"), netip.MustParseAddr("127.0.0.1")},
		"mapped.example.com": {netip.MustParseAddr("::ffff:127.0.0.1")},
	}
	tests := map[string]struct {
		host    string
		opts    Options
		wantErr error
	}{
		"fail rebinding to loopback": {host: "rebind.example.com", opts: Options{Resolver: r}, wantErr: ErrForbiddenAddress},
		// Every address of the answer is judged, not only the first.
		"fail mixed answer":  {host: "mixed.example.com", opts: Options{Resolver: r}, wantErr: ErrForbiddenAddress},
		"fail mapped answer": {host: "mapped.example.com", opts: Options{Resolver: r}, wantErr: ErrForbiddenAddress},
		// The name localhost is judged before any lookup, at connect time too.
		"fail system resolver localhost": {host: "localhost", wantErr: ErrForbiddenHost},
		"fail ip literal":                {host: "127.0.0.1", wantErr: ErrForbiddenAddress},
		"ok rebinding when allowed":      {host: "rebind.example.com", opts: Options{Resolver: r, AllowLoopback: true}},
		// 10.0.0.5 is refused at connect; 127.0.0.1 is then allowed.
		"ok mixed when allowed": {host: "mixed.example.com", opts: Options{Resolver: r, AllowLoopback: true}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			u := "http://" + net.JoinHostPort(tc.host, port) + "/hook"
			before := hits.Load()
			resp, err := post(t, NewClient(tc.opts), u)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				require.ErrorIs(t, err, ErrRefusedDestination)
				require.Equal(t, before, hits.Load(), "the receiver was reached")
				return
			}
			require.NoError(t, err)
			require.Equal(t, http.StatusNoContent, resp.StatusCode)
		})
	}
	require.NoError(t, ValidateURL("https://rebind.example.com/", Options{}), "the name itself must pass create-time validation")
}

func TestClientDoesNotFollowRedirects(t *testing.T) {
	target, targetHits := receiver(t, ok)
	src, _ := receiver(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/elsewhere", http.StatusTemporaryRedirect)
	})
	c := NewClient(Options{AllowLoopback: true})
	res, err := Send(t.Context(), c, Delivery{ID: "d1", EventID: "e1", Event: "policy.created", URL: src.URL,
		Secret: []byte("s"), Attempt: 1}, time.Now())
	require.NoError(t, err)
	require.Equal(t, http.StatusTemporaryRedirect, res.Status)
	require.False(t, res.Delivered())
	require.Equal(t, "unexpected status 307", res.Error)
	require.Zero(t, targetHits.Load(), "the redirect was followed")
}

func TestClientSettings(t *testing.T) {
	c := NewClient(Options{})
	tr, isTransport := c.Transport.(*http.Transport)
	require.True(t, isTransport)
	require.Nil(t, tr.Proxy, "a proxy from the environment would hide the real peer from the connect-time check")
	require.True(t, tr.DisableKeepAlives)
	require.Equal(t, RequestTimeout, c.Timeout)
}

func TestSendReadsABoundedBody(t *testing.T) {
	// A receiver that never stops answering must not hold the worker.
	srv, _ := receiver(t, func(w http.ResponseWriter, r *http.Request) {
		chunk := make([]byte, 32<<10)
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			if r.Context().Err() != nil {
				return
			}
		}
	})
	res, err := Send(t.Context(), NewClient(Options{AllowLoopback: true}),
		Delivery{ID: "d1", EventID: "e1", Event: "policy.created", URL: srv.URL, Secret: []byte("s"), Attempt: 1}, time.Now())
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.Status)
	require.Empty(t, res.Error)
}

func TestSendErrorOmitsURLPathAndQuery(t *testing.T) {
	// Port 1 on loopback: connection refused, a transport error.
	res, err := Send(t.Context(), NewClient(Options{AllowLoopback: true}),
		Delivery{ID: "d1", URL: "http://127.0.0.1:1/canary-path?canary=token", Secret: []byte("s"), Attempt: 1}, time.Now())
	require.NoError(t, err)
	require.Zero(t, res.Status)
	require.NotEmpty(t, res.Error)
	require.NotContains(t, res.Error, "canary", "the result repeats the URL's path or query")
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u
}
