package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/opencustody/ocv/api"
)

// maxAnswerBytes bounds an API answer read into memory.
const maxAnswerBytes = 32 << 20

// maxRefreshSkew is the most a token is refreshed before its expiry.
const maxRefreshSkew = time.Minute

// apiClient calls the OCV API as one agent. It is safe for concurrent use.
type apiClient struct {
	base     string
	hc       *http.Client
	agentID  string
	agentKey string
	static   string // fixed bearer token: no exchange, no refresh
	now      func() time.Time

	mu      sync.Mutex
	token   string
	refresh time.Time // exchange again at or after this instant
}

// accessToken returns a token valid for a while, exchanging the agent key
// when there is none or it is about to expire.
func (c *apiClient) accessToken(ctx context.Context) (string, error) {
	if c.static != "" {
		return c.static, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.token != "" && c.now().Before(c.refresh) {
		return c.token, nil
	}
	return c.exchangeLocked(ctx)
}

// renew forgets stale (the token a request was refused with) and returns a
// fresh one; it reports false when no renewal is possible.
func (c *apiClient) renew(ctx context.Context, stale string) (string, bool, error) {
	if c.static != "" {
		return "", false, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.token != "" && c.token != stale && c.now().Before(c.refresh) {
		return c.token, true, nil // another call renewed it already
	}
	tok, err := c.exchangeLocked(ctx)
	return tok, err == nil, err
}

func (c *apiClient) exchangeLocked(ctx context.Context) (string, error) {
	c.token = ""
	status, body, err := c.send(ctx, http.MethodPost, "/v1/auth/agent-token", nil, nil,
		api.AgentTokenRequest{AgentID: &c.agentID, APIKey: &c.agentKey}, "")
	if err != nil {
		return "", fmt.Errorf("exchanging the agent key for a token: %w", err)
	}
	if status != http.StatusOK {
		return "", fmt.Errorf("exchanging the agent key for a token: %w", problemFrom(status, body))
	}
	var t api.TokenResponse
	if err := json.Unmarshal(body, &t); err != nil || t.AccessToken == "" || t.ExpiresIn <= 0 {
		return "", fmt.Errorf("exchanging the agent key for a token: %w", ErrBadAnswer)
	}
	ttl := time.Duration(t.ExpiresIn) * time.Second
	c.token, c.refresh = t.AccessToken, c.now().Add(ttl-min(maxRefreshSkew, ttl/10))
	return c.token, nil
}

// callWith sends an authenticated request with extra request headers (for
// example Idempotency-Key) and returns the status and body of a 2xx answer;
// other answers become *APIError. A 401 is retried once with a freshly
// exchanged token, which is safe for non-idempotent requests: the API
// refuses an unauthenticated request before acting on it.
func (c *apiClient) callWith(ctx context.Context, method, path string, query url.Values, hdr http.Header, in any) (int, []byte, error) {
	tok, err := c.accessToken(ctx)
	if err != nil {
		return 0, nil, err
	}
	status, body, err := c.send(ctx, method, path, query, hdr, in, tok)
	if err != nil {
		return 0, nil, err
	}
	if status == http.StatusUnauthorized {
		fresh, ok, err := c.renew(ctx, tok)
		if err != nil {
			return 0, nil, err
		}
		if ok {
			if status, body, err = c.send(ctx, method, path, query, hdr, in, fresh); err != nil {
				return 0, nil, err
			}
		}
	}
	if status < 200 || status > 299 {
		return status, nil, problemFrom(status, body)
	}
	return status, body, nil
}

// callJSON is call with the answer decoded into out.
func (c *apiClient) callJSON(ctx context.Context, method, path string, query url.Values, in, out any) (int, error) {
	return c.callJSONWith(ctx, method, path, query, nil, in, out)
}

// callJSONWith is callWith with the answer decoded into out.
func (c *apiClient) callJSONWith(ctx context.Context, method, path string, query url.Values, hdr http.Header, in, out any) (int, error) {
	status, body, err := c.callWith(ctx, method, path, query, hdr, in)
	if err != nil {
		return status, err
	}
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			return status, fmt.Errorf("decoding the answer of %s %s: %w", method, path, ErrBadAnswer)
		}
	}
	return status, nil
}

// send performs one request with the extra headers hdr (may be nil); tok
// may be empty. Transport errors name the method and path only.
func (c *apiClient) send(ctx context.Context, method, path string, query url.Values, hdr http.Header, in any, tok string) (int, []byte, error) {
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
		return 0, nil, fmt.Errorf("building request %s %s: %w", method, path, err)
	}
	for k, vs := range hdr {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "ocv-mcp")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("calling %s %s: %w", method, path, unwrapURLError(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if err != nil {
		return 0, nil, fmt.Errorf("reading the answer of %s %s: %w", method, path, err)
	}
	return resp.StatusCode, body, nil
}

// unwrapURLError drops the *url.Error wrapper (its text repeats the URL).
func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// escapePath checks a secret path and percent-encodes each segment.
func escapePath(p string) (string, error) {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if s == "" || s == "." || s == ".." {
			return "", ErrBadPath
		}
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/"), nil
}
