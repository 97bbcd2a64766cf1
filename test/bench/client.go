package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"
)

// maxRelogin bounds how long a token is used before the client signs in
// again; the proxy's tokens live 900 s by default.
const maxRelogin = 10 * time.Minute

// checkTarget parses the base URL and refuses anything but a loopback
// target unless allowRemote is set. Only IP literals and "localhost" count
// as loopback: a DNS name is not resolved here, because the answer at dial
// time could differ from the one checked.
func checkTarget(raw string, allowRemote bool) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: -url: %w", ErrInvalidFlag, err)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return nil, fmt.Errorf("%w: -url must be https:// (or http://), got %q", ErrInvalidFlag, u.Scheme)
	}
	if u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%w: -url must be scheme://host[:port][/prefix]", ErrInvalidFlag)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	host := u.Hostname()
	loopback := strings.EqualFold(host, "localhost")
	if ip := net.ParseIP(host); ip != nil {
		loopback = ip.IsLoopback()
	}
	if !loopback && !allowRemote {
		return nil, fmt.Errorf("%w: %s", ErrRemoteURL, host)
	}
	return u, nil
}

// newTransport returns the keep-alive transport shared by every worker,
// sized so that each of up to conns workers keeps its own idle connection.
// With h2 the workers multiplex streams over HTTP/2 instead.
func newTransport(caPath string, conns int, h2 bool) (*http.Transport, error) {
	pool := x509.NewCertPool()
	if caPath != "" {
		pem, err := os.ReadFile(caPath)
		if err != nil {
			return nil, fmt.Errorf("reading CA certificate (start the stack with `make run`, or pass -cacert): %w", err)
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%w: -cacert %s holds no PEM certificate", ErrInvalidFlag, caPath)
		}
	} else if pool, _ = x509.SystemCertPool(); pool == nil {
		pool = x509.NewCertPool()
	}
	return newPoolTransport(pool, conns, h2), nil
}

// newPoolTransport is newTransport with the trusted roots given: the
// floor's client (floor.go) is built by it too, so that it talks TLS and
// HTTP exactly like the stack's.
func newPoolTransport(pool *x509.CertPool, conns int, h2 bool) *http.Transport {
	protos := new(http.Protocols)
	if h2 {
		protos.SetHTTP2(true)
	} else {
		protos.SetHTTP1(true)
	}
	return &http.Transport{
		Proxy:               nil, // never detour through an environment proxy
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:     &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout: 5 * time.Second,
		Protocols:           protos,
		MaxIdleConns:        conns + 8,
		MaxIdleConnsPerHost: conns + 8,
		IdleConnTimeout:     90 * time.Second,
	}
}

// client is the bench's view of the OCV API: one account, one vault, and a
// bearer token that a background loop renews.
type client struct {
	http    *http.Client
	base    string
	email   string
	pass    string
	vaultID string
	token   atomic.Pointer[string]
}

// call sends one JSON request with the user's token and decodes a JSON
// answer into out when the status is want.
func (c *client) call(ctx context.Context, method, path string, in, out any, want int) error {
	var tok string
	if p := c.token.Load(); p != nil {
		tok = *p
	}
	return c.callAs(ctx, tok, method, path, in, out, want)
}

// callAs is call with the bearer token tok; "" sends no Authorization
// header. Error bodies are not echoed: they could carry request data, and
// the status says enough for a load generator.
func (c *client) callAs(ctx context.Context, tok, method, path string, in, out any, want int) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("encoding request: %w", err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return fmt.Errorf("building request: %w", err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		_, _ = io.Copy(io.Discard, resp.Body)
		return fmt.Errorf("%w: %s %s answered %d, want %d", ErrUnexpectedStatus, method, path, resp.StatusCode, want)
	}
	if out == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("decoding answer of %s %s: %w", method, path, err)
	}
	return nil
}

// health checks that the stack answers at all, so that a stopped stack
// fails in one clear line instead of inside the first scenario. It returns
// the negotiated protocol, e.g. "HTTP/2.0".
func (c *client) health(ctx context.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/v1/health", nil)
	if err != nil {
		return "", fmt.Errorf("building request: %w", err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return "", fmt.Errorf("checking the stack at %s (is `make run` running?): %w", c.base, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("checking the stack at %s: %w: /v1/health answered %d", c.base, ErrUnexpectedStatus, resp.StatusCode)
	}
	return resp.Proto, nil
}

// setup signs up a fresh random user, signs in and creates a vault. It
// returns the token's lifetime.
func (c *client) setup(ctx context.Context) (time.Duration, error) {
	suffix := randomHex(8)
	c.email = "bench-" + suffix + "@example.com"
	c.pass = "bench-" + randomHex(16)
	cred := map[string]string{"email": c.email, "password": c.pass}
	if err := c.call(ctx, http.MethodPost, "/v1/auth/signup", cred, nil, http.StatusCreated); err != nil {
		return 0, fmt.Errorf("signing up: %w", err)
	}
	ttl, err := c.login(ctx)
	if err != nil {
		return 0, err
	}
	var v struct {
		ID string `json:"id"`
	}
	if err := c.call(ctx, http.MethodPost, "/v1/vaults", map[string]string{"name": "bench-" + suffix}, &v, http.StatusCreated); err != nil {
		return 0, fmt.Errorf("creating vault: %w", err)
	}
	if v.ID == "" {
		return 0, fmt.Errorf("creating vault: %w: answer has no id", ErrUnexpectedStatus)
	}
	c.vaultID = v.ID
	return ttl, nil
}

// login signs in and stores the new token; it returns the token's lifetime.
func (c *client) login(ctx context.Context) (time.Duration, error) {
	var t struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int64  `json:"expires_in"`
	}
	cred := map[string]string{"email": c.email, "password": c.pass}
	if err := c.call(ctx, http.MethodPost, "/v1/auth/token", cred, &t, http.StatusOK); err != nil {
		return 0, fmt.Errorf("signing in: %w", err)
	}
	if t.AccessToken == "" {
		return 0, fmt.Errorf("signing in: %w: answer has no access_token", ErrUnexpectedStatus)
	}
	c.token.Store(&t.AccessToken)
	return time.Duration(t.ExpiresIn) * time.Second, nil
}

// renewEvery returns how long to wait before signing in again: every ten
// minutes, or at two thirds of a shorter token lifetime.
func renewEvery(ttl time.Duration) time.Duration {
	if ttl <= 0 {
		return maxRelogin
	}
	return min(maxRelogin, max(ttl*2/3, 10*time.Second))
}

// keepToken re-issues the user's token until ctx ends, so that runs longer
// than the token's lifetime keep working. The first interval comes from the
// setup's sign-in.
func (c *client) keepToken(ctx context.Context, ttl time.Duration) {
	keepRenewing(ctx, "token", ttl, c.login)
}

// keepRenewing calls renew (which stores a fresh token of the kind what)
// until ctx ends, at the interval renewEvery derives from the last
// lifetime, starting from ttl.
func keepRenewing(ctx context.Context, what string, ttl time.Duration, renew func(context.Context) (time.Duration, error)) {
	wait := renewEvery(ttl)
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		got, err := renew(lctx)
		cancel()
		if err != nil {
			if ctx.Err() == nil {
				fmt.Fprintf(os.Stderr, "bench: renewing %s failed, retrying in 30s: %v\n", what, err)
			}
			wait = 30 * time.Second
			continue
		}
		wait = renewEvery(got)
	}
}

// randomHex returns n random bytes, hex-encoded.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}
