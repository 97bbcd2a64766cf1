package test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

// paidStack starts a stack whose Free tier allows requests calls a month
// ("unlimited" keeps the stack default) with x402 payments to payTo, so
// that a 402 carries its accepts entry. extra adds proxy settings.
func paidStack(t *testing.T, requests string, extra ...string) *stack.Stack {
	t.Helper()
	fac, _ := fakeFacilitator(t)
	env := append([]string{"OCV_TIER_FREE_REQUESTS=" + requests, "OCV_X402_PAY_TO=" + payTo,
		"OCV_X402_FACILITATOR_URL=" + fac.URL}, extra...)
	return stack.Start(t, stack.WithProxyEnv(env...))
}

// answer is one response of a concurrent burst.
type answer struct {
	status int
	header http.Header
	body   []byte
	err    error
}

// send is a goroutine-safe request (stack.Do fails the test from the
// calling goroutine, which must be the test's own).
func send(s *stack.Stack, method, path, token string, body any, header http.Header) answer {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return answer{err: err}
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.BaseURL+path, rd)
	if err != nil {
		return answer{err: err}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+token)
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := s.HTTP.Do(req)
	if err != nil {
		return answer{err: fmt.Errorf("%s %s: %w", method, path, err)}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, header: resp.Header, body: b, err: err}
}

// burst sends n copies of one request at once and returns every answer.
func burst(t *testing.T, s *stack.Stack, n int, method, path, token string, body any, header http.Header) []answer {
	t.Helper()
	out := make([]answer, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out[i] = send(s, method, path, token, body, header)
		}()
	}
	close(start)
	wg.Wait()
	for _, a := range out {
		require.NoError(t, a.err)
	}
	return out
}

func TestQuotaEdgeExact(t *testing.T) {
	s := paidStack(t, "1000")
	// Signup and token issuance are public: they are not counted.
	me := s.SignUp("edge-exact@example.com")
	for i := 1; i <= 1000; i++ {
		r := s.Do("GET", "/v1/vaults", me.Token, nil)
		require.Equal(t, http.StatusOK, r.Status, "call %d: %s", i, r.Body)
		require.Equal(t, strconv.Itoa(i), r.Header.Get("X-RateLimit-Requests-Used"), "call %d", i)
		require.Equal(t, "1000", r.Header.Get("X-RateLimit-Requests-Limit"))
	}
	r := s.Do("GET", "/v1/vaults", me.Token, nil)
	requireX402(t, s, r, "/v1/vaults")
	require.Equal(t, "1000", r.Header.Get("X-RateLimit-Requests-Used"), "the refused call is not counted")
	require.Equal(t, "1000", r.Header.Get("X-RateLimit-Requests-Limit"))
	// A public route still answers for the exhausted organization.
	require.Equal(t, http.StatusOK, s.Do("POST", "/v1/auth/token", "",
		map[string]string{"email": me.Email, "password": me.Password}).Status)
	requireX402(t, s, s.Do("GET", "/v1/vaults", me.Token, nil), "/v1/vaults")
}

func TestQuotaEdgeConcurrent(t *testing.T) {
	const limit, calls = 100, 200
	s := paidStack(t, strconv.Itoa(limit))
	me := s.SignUp("edge-concurrent@example.com") // public: not counted

	answers := burst(t, s, calls, "GET", "/v1/vaults", me.Token, nil, nil)
	counts := map[int]int{}
	used := map[string]bool{}
	for _, a := range answers {
		counts[a.status]++
		switch a.status {
		case http.StatusOK:
			u := a.header.Get("X-RateLimit-Requests-Used")
			require.False(t, used[u], "two calls were counted as call %s", u)
			used[u] = true
		case http.StatusPaymentRequired:
			var body map[string]any
			require.NoError(t, json.Unmarshal(a.body, &body))
			require.Equal(t, "payment_required", body["type"])
			require.NotEmpty(t, body["accepts"])
		}
	}
	require.Equal(t, map[int]int{http.StatusOK: limit, http.StatusPaymentRequired: calls - limit}, counts)
	for i := 1; i <= limit; i++ {
		require.True(t, used[strconv.Itoa(i)], "call %d was never served", i)
	}

	// One more call: refused, and its header shows exactly the limit used.
	r := s.Do("GET", "/v1/vaults", me.Token, nil)
	requireX402(t, s, r, "/v1/vaults")
	require.Equal(t, strconv.Itoa(limit), r.Header.Get("X-RateLimit-Requests-Used"))
	require.Equal(t, strconv.Itoa(limit), r.Header.Get("X-RateLimit-Requests-Limit"))
}

func TestPipelinePrecedence(t *testing.T) {
	// Stack one: a per-IP bucket of 3 calls, refilled every 100 s.
	limited := paidStack(t, "unlimited", "OCV_RATE_LIMIT_IP_RATE=0.01", "OCV_RATE_LIMIT_IP_BURST=3")
	for range 10 {
		if limited.Do("GET", "/v1/health", "", nil).Status == http.StatusTooManyRequests {
			break
		}
	}
	// Stack two: no rate limit to speak of.
	s := paidStack(t, "unlimited")
	owner := s.SignUp("precedence-owner@example.com")
	agentID, agentKey := registerAgent(t, s, owner.Token, map[string]any{"name": "precedence-bot"})
	agent := agentJWT(t, s, agentID, agentKey)
	blocked := s.SignUp("precedence-blocked@example.com")
	addIPRule(t, s, blocked.Token, "127.0.0.1", "block")

	tests := map[string]struct {
		s      *stack.Stack
		method string
		path   string // default /v1/vaults
		token  string
		status int
		typ    string
	}{
		// 429 wins over the 402 that no token on a paid route would get.
		"1 rate limited, no token, paid route": {s: limited, method: "GET", status: http.StatusTooManyRequests, typ: "rate_limited"},
		// 429 wins over the 401 of an invalid token too.
		"1 rate limited, invalid token": {s: limited, method: "GET", token: "not.a.jwt", status: http.StatusTooManyRequests, typ: "rate_limited"},
		// 402 wins over the 401 that a missing token would otherwise get.
		"2 no token on a paid route":  {s: s, method: "GET", status: http.StatusPaymentRequired, typ: "payment_required"},
		"2 no token on a paid POST":   {s: s, method: "POST", status: http.StatusPaymentRequired, typ: "payment_required"},
		"3 invalid token":             {s: s, method: "GET", token: "not.a.jwt", status: http.StatusUnauthorized, typ: "invalid_token"},
		"4 agent on a human-only GET": {s: s, method: "GET", path: "/v1/agents", token: agent, status: http.StatusForbidden, typ: "human_only"},
		"4 agent on a human-only POST": {s: s, method: "POST", token: agent, status: http.StatusForbidden,
			typ: "human_only"},
		"4 valid token, blocked IP": {s: s, method: "GET", token: blocked.Token, status: http.StatusForbidden, typ: "ip_denied"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var body any
			if tc.method == "POST" {
				body = map[string]string{"name": "precedence"}
			}
			path := tc.path
			if path == "" {
				path = "/v1/vaults"
			}
			r := tc.s.Do(tc.method, path, tc.token, body)
			requireProblem(t, r, tc.status, tc.typ)
			switch tc.status {
			case http.StatusTooManyRequests:
				n, err := strconv.Atoi(r.Header.Get("Retry-After"))
				require.NoError(t, err)
				require.GreaterOrEqual(t, n, 1)
			case http.StatusPaymentRequired:
				requireX402(t, tc.s, r, path)
			}
		})
	}
	// The control: the owner's own valid token passes every step.
	require.Equal(t, http.StatusOK, s.Do("GET", "/v1/vaults", owner.Token, nil).Status)
}

func TestIdempotencyInFlight(t *testing.T) {
	s := stack.Start(t)
	me := s.SignUp("idempotent-inflight@example.com")
	key := http.Header{"Idempotency-Key": {"inflight-once"}}
	body := map[string]string{"name": "raced"}

	answers := burst(t, s, 20, "POST", "/v1/vaults", me.Token, body, key)
	var created, replayed, inProgress int
	ids := map[string]bool{}
	for _, a := range answers {
		var m map[string]any
		require.NoError(t, json.Unmarshal(a.body, &m), "status %d", a.status)
		switch a.status {
		case http.StatusCreated:
			created++
			require.Empty(t, a.header.Get("Idempotent-Replayed"))
			ids[m["id"].(string)] = true
		case http.StatusOK:
			replayed++
			require.Equal(t, "true", a.header.Get("Idempotent-Replayed"))
			ids[m["id"].(string)] = true
		case http.StatusConflict:
			inProgress++
			require.Equal(t, "application/problem+json", a.header.Get("Content-Type"))
			require.Equal(t, "idempotency_in_progress", m["type"])
		default:
			t.Fatalf("unexpected answer %d: %s", a.status, a.body)
		}
	}
	t.Logf("answers: %d created, %d replayed, %d in progress", created, replayed, inProgress)
	require.Equal(t, 1, created, "one request ran the handler")
	require.Equal(t, 20, created+replayed+inProgress)
	require.Len(t, ids, 1, "every replay carries the id of the one vault")

	items := s.Do("GET", "/v1/vaults", me.Token, nil).JSON(t)["items"].([]any)
	require.Len(t, items, 1, "the vault was created once")
	require.True(t, ids[items[0].(map[string]any)["id"].(string)])

	// Once the first is done, a duplicate replays it.
	again := s.DoHeaders("POST", "/v1/vaults", me.Token, body, key)
	require.Equal(t, http.StatusOK, again.Status, string(again.Body))
	require.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
	require.True(t, ids[again.JSON(t)["id"].(string)])
}
