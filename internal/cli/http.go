package cli

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/opencustody/ocv/api"
)

// maxAnswerBytes bounds an API answer read into memory.
const maxAnswerBytes = 32 << 20

// refreshSkew refreshes an access token this long before its expiry.
const refreshSkew = 30 * time.Second

// client talks to the OCV API with a bearer token from --token/$OCV_TOKEN
// or from the login cache (refreshed when expired).
type client struct {
	base  string
	hc    *http.Client
	token string    // explicit token; when set the cache is not used
	creds credStore // login cache
	now   func() time.Time
}

func newClient(g globals, creds credStore) (*client, error) {
	u, err := url.Parse(g.url)
	if err != nil || u.Host == "" || u.Scheme != "https" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return nil, fmt.Errorf("%w: --url must be an https:// base URL like %s", ErrUsage, defaultURL)
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	ca := g.cacert
	if ca == "" && fileExists(defaultCACert) {
		ca = defaultCACert
	}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("reading CA certificate: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("reading CA certificate: %s holds no PEM certificate", ca)
		}
		tc.RootCAs = pool
	}
	hc := &http.Client{
		Timeout:   2 * time.Minute,
		Transport: &http.Transport{TLSClientConfig: tc, Proxy: http.ProxyFromEnvironment},
		// The API never redirects; following one could carry the token elsewhere.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return &client{base: cacheKey(g.url), hc: hc, token: g.token, creds: creds, now: time.Now}, nil
}

// call sends an authenticated request and returns the body of a 2xx answer.
// A 401 on a cached token that can be refreshed is retried once.
func (c *client) call(ctx context.Context, method, path string, query url.Values, in any) ([]byte, error) {
	tok, err := c.accessToken(ctx)
	if err != nil {
		return nil, err
	}
	status, body, err := c.send(ctx, method, path, query, in, tok)
	if err != nil {
		return nil, err
	}
	if status == http.StatusUnauthorized && c.token == "" {
		if e, ok, _ := c.creds.get(c.base); ok && e.RefreshToken != "" {
			if tok, err = c.refresh(ctx, tok); err != nil {
				return nil, err
			}
			if status, body, err = c.send(ctx, method, path, query, in, tok); err != nil {
				return nil, err
			}
		}
	}
	if status < 200 || status > 299 {
		return nil, problemFrom(status, body)
	}
	return body, nil
}

// send performs one request; tok may be empty.
func (c *client) send(ctx context.Context, method, path string, query url.Values, in any, tok string) (int, []byte, error) {
	return c.sendWith(ctx, method, path, query, in, tok, nil)
}

// sendWith is send with extra request headers.
func (c *client) sendWith(ctx context.Context, method, path string, query url.Values, in any, tok string,
	hdr http.Header) (int, []byte, error) {
	var rd io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return 0, nil, fmt.Errorf("encoding request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	u := c.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return 0, nil, fmt.Errorf("building request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "ocv-cli")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("calling %s %s: %w", method, c.base+path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if err != nil {
		return 0, nil, fmt.Errorf("reading answer of %s %s: %w", method, c.base+path, err)
	}
	return resp.StatusCode, body, nil
}

// problemFrom decodes a problem-details answer (or makes one up from the status).
func problemFrom(status int, body []byte) *ProblemError {
	var p ProblemError
	if err := json.Unmarshal(body, &p); err != nil || p.Title == "" {
		p = ProblemError{Title: http.StatusText(status), Detail: "the server answered without problem details"}
	}
	p.Status = status
	return &p
}

// exchange posts credentials to a token endpoint (unauthenticated).
func (c *client) exchange(ctx context.Context, path string, in any) (api.TokenResponse, error) {
	status, body, err := c.send(ctx, http.MethodPost, path, nil, in, "")
	if err != nil {
		return api.TokenResponse{}, err
	}
	if status != http.StatusOK {
		return api.TokenResponse{}, problemFrom(status, body)
	}
	var t api.TokenResponse
	if err := json.Unmarshal(body, &t); err != nil || t.AccessToken == "" {
		return api.TokenResponse{}, fmt.Errorf("decoding token answer of %s: unexpected shape", path)
	}
	return t, nil
}

func (c *client) entryFrom(t api.TokenResponse, email, method string) credEntry {
	return credEntry{AccessToken: t.AccessToken, RefreshToken: t.RefreshToken, Email: email, Method: method,
		ExpiresAt: c.now().Add(time.Duration(t.ExpiresIn)*time.Second - refreshSkew).UTC()}
}

// accessToken returns the explicit token, or the cached one (refreshed when
// it expired and a refresh token exists).
func (c *client) accessToken(ctx context.Context) (string, error) {
	if c.token != "" {
		return c.token, nil
	}
	e, ok, err := c.creds.get(c.base)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("%w to %s: run ocv login (or set OCV_TOKEN)", ErrNotLoggedIn, c.base)
	}
	if c.now().Before(e.ExpiresAt) {
		return e.AccessToken, nil
	}
	if e.RefreshToken == "" {
		return "", ErrSessionExpired
	}
	return c.refresh(ctx, e.AccessToken)
}

// refresh trades the cached refresh token for new tokens under the cache
// lock, unless another process already replaced stale.
func (c *client) refresh(ctx context.Context, stale string) (string, error) {
	var out string
	err := c.creds.update(func(f *credFile) error {
		e, ok := f.Entries[c.base]
		if !ok {
			return fmt.Errorf("%w to %s: run ocv login", ErrNotLoggedIn, c.base)
		}
		if e.AccessToken != stale && c.now().Before(e.ExpiresAt) {
			out = e.AccessToken
			return nil
		}
		if e.RefreshToken == "" {
			return ErrSessionExpired
		}
		t, err := c.exchange(ctx, "/v1/auth/refresh", api.RefreshRequest{RefreshToken: &e.RefreshToken})
		var p *ProblemError
		if errors.As(err, &p) && p.Status == http.StatusUnauthorized {
			return ErrSessionExpired
		}
		if err != nil {
			return fmt.Errorf("refreshing the session: %w", err)
		}
		f.Entries[c.base] = c.entryFrom(t, e.Email, e.Method)
		out = t.AccessToken
		return nil
	})
	return out, err
}

// escapePath percent-encodes each segment of a secret path for a URL. Empty,
// "." and ".." segments are refused here: the server would refuse them too,
// and an HTTP client may silently clean them away first.
func escapePath(p string) (string, error) {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if s == "" || s == "." || s == ".." {
			return "", fmt.Errorf("%w: secret path %q has an empty, '.' or '..' segment", ErrUsage, p)
		}
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/"), nil
}
