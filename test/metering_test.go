package test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/proxy/metering/x402"
	"github.com/opencustody/ocv/proxy/metering/x402/x402test"
	"github.com/opencustody/ocv/test/stack"
)

// payTo is the payee the metering stack announces.
const payTo = "0x1111111111111111111111111111111111111111"

// fakeFacilitator settles every payment it is sent and counts them.
func fakeFacilitator(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			PaymentPayload x402.Payload `json:"paymentPayload"`
		}
		if r.Method != http.MethodPost || r.URL.Path != "/settle" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad settle request", http.StatusBadRequest)
			return
		}
		n := calls.Add(1)
		_ = json.NewEncoder(w).Encode(x402.SettleResponse{Success: true, Transaction: fmt.Sprintf("0x%064x", n),
			Network: "base", Payer: req.PaymentPayload.Payload.Authorization.From})
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// meteringStack starts a stack whose Free tier allows 5 calls a month, one
// vault, two secret paths and one agent, with x402 payments to payTo
// settled by a fake facilitator.
func meteringStack(t *testing.T) (*stack.Stack, x402.PaymentConfig, *atomic.Int64) {
	t.Helper()
	fac, calls := fakeFacilitator(t)
	s := stack.Start(t, stack.WithProxyEnv("OCV_TIER_FREE_REQUESTS=5", "OCV_TIER_FREE_VAULTS=1", "OCV_TIER_FREE_WALLETS=10",
		"OCV_TIER_FREE_SECRETS=2", "OCV_TIER_FREE_AGENTS=1", "OCV_X402_PAY_TO="+payTo, "OCV_X402_FACILITATOR_URL="+fac.URL))
	return s, x402.PaymentConfig{PayTo: payTo, FacilitatorURL: fac.URL}.WithDefaults(), calls
}

// useQuota makes the 5 calls of the Free tier and checks their headers.
func useQuota(t *testing.T, s *stack.Stack, token string) {
	t.Helper()
	for i := 1; i <= 5; i++ {
		r := s.Do("GET", "/v1/vaults", token, nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.Equal(t, strconv.Itoa(i), r.Header.Get("X-RateLimit-Requests-Used"))
		require.Equal(t, "5", r.Header.Get("X-RateLimit-Requests-Limit"))
	}
}

func requireX402(t *testing.T, s *stack.Stack, r stack.Response, path string) map[string]any {
	t.Helper()
	requireProblem(t, r, http.StatusPaymentRequired, "payment_required")
	body := r.JSON(t)
	require.EqualValues(t, 1, body["x402Version"])
	accepts, ok := body["accepts"].([]any)
	require.True(t, ok)
	require.Len(t, accepts, 1)
	a := accepts[0].(map[string]any)
	require.Equal(t, "exact", a["scheme"])
	require.Equal(t, "base", a["network"])
	require.Equal(t, "10000", a["maxAmountRequired"])
	require.Equal(t, s.BaseURL+path, a["resource"])
	require.Equal(t, payTo, a["payTo"])
	require.Equal(t, "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", a["asset"], "USDC on Base")
	require.EqualValues(t, 60, a["maxTimeoutSeconds"])
	require.NotEmpty(t, a["description"])
	require.Equal(t, "application/json", a["mimeType"])
	return body
}

func TestMetering(t *testing.T) {
	s, payCfg, settled := meteringStack(t)
	key, err := crypto.GenerateKey()
	require.NoError(t, err)

	t.Run("quota headers, then 402 with the x402 body", func(t *testing.T) {
		me := s.SignUp("quota@example.com")
		useQuota(t, s, me.Token)
		r := s.Do("GET", "/v1/vaults", me.Token, nil)
		requireX402(t, s, r, "/v1/vaults")
		require.Equal(t, "5", r.Header.Get("X-RateLimit-Requests-Limit"))
	})

	t.Run("no token 402, invalid token 401 (Errors rule 2)", func(t *testing.T) {
		requireX402(t, s, s.Do("GET", "/v1/vaults", "", nil), "/v1/vaults")
		requireX402(t, s, s.Do("POST", "/v1/vaults", "", map[string]string{"name": "x"}), "/v1/vaults")
		requireProblem(t, s.Do("GET", "/v1/vaults", "not.a.jwt", nil), http.StatusUnauthorized, "invalid_token")
	})

	t.Run("public routes are never paid", func(t *testing.T) {
		me := s.SignUp("public@example.com")
		useQuota(t, s, me.Token)
		for _, path := range []string{"/v1/health", "/.well-known/jwks.json", "/openapi.json", "/.well-known/x402"} {
			r := s.Do("GET", path, "", nil)
			require.Equal(t, http.StatusOK, r.Status, path)
			require.Empty(t, r.Header.Get("X-RateLimit-Requests-Used"), path)
		}
		r := s.Do("POST", "/v1/auth/token", "", map[string]string{"email": me.Email, "password": me.Password})
		require.Equal(t, http.StatusOK, r.Status)
		d := s.Do("GET", "/.well-known/x402", "", nil).JSON(t)
		require.Equal(t, true, d["enabled"])
		require.EqualValues(t, 8453, d["chainId"])
		require.Equal(t, "X-PAYMENT", d["paymentHeader"])
	})

	t.Run("a valid X-PAYMENT pays once; its nonce is never reused", func(t *testing.T) {
		me := s.SignUp("payer@example.com")
		useQuota(t, s, me.Token)
		header, err := x402test.Header(payCfg, key, time.Now())
		require.NoError(t, err)
		pay := http.Header{"X-Payment": {header}}
		before := settled.Load()
		r := s.DoHeaders("GET", "/v1/vaults", me.Token, nil, pay)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.NotEmpty(t, r.Header.Get("X-Payment-Response"))
		require.Equal(t, before+1, settled.Load())

		replay := s.DoHeaders("GET", "/v1/vaults", me.Token, nil, pay)
		body := requireX402(t, s, replay, "/v1/vaults")
		require.NotEmpty(t, body["error"], "the refusal names its x402 reason")
		require.Equal(t, before+1, settled.Load(), "a replayed payment is not settled again")

		// A payment signed by another key for another payee is refused.
		other := payCfg
		other.PayTo = "0x2222222222222222222222222222222222222222"
		bad, err := x402test.Header(other, key, time.Now())
		require.NoError(t, err)
		requireX402(t, s, s.DoHeaders("GET", "/v1/vaults", me.Token, nil, http.Header{"X-Payment": {bad}}), "/v1/vaults")
	})

	t.Run("prepaid credits are spent first", func(t *testing.T) {
		me := s.SignUp("credits@example.com")
		addCredits(t, s, me.OrgID, 2)
		for i := 1; i <= 5; i++ {
			r := s.Do("GET", "/v1/vaults", me.Token, nil)
			require.Equal(t, http.StatusOK, r.Status)
			require.Equal(t, "2", r.Header.Get("X-Credit-Balance-Cents"), "within quota credits are not spent")
		}
		for _, want := range []string{"1", "0"} {
			r := s.Do("GET", "/v1/vaults", me.Token, nil)
			require.Equal(t, http.StatusOK, r.Status, string(r.Body))
			require.Equal(t, want, r.Header.Get("X-Credit-Balance-Cents"))
		}
		r := s.Do("GET", "/v1/vaults", me.Token, nil)
		requireX402(t, s, r, "/v1/vaults")
		require.Equal(t, "0", r.Header.Get("X-Credit-Balance-Cents"))
	})

	t.Run("resource limits answer 403 resource_limit_exceeded", func(t *testing.T) {
		me := s.SignUp("limits@example.com")
		vault := s.CreateVault(me.Token, "only")
		requireProblem(t, s.Do("POST", "/v1/vaults", me.Token, map[string]string{"name": "second"}),
			http.StatusForbidden, "resource_limit_exceeded")
		put := map[string]any{"type": "password", "value": "v"}
		secret := "/v1/vaults/" + vault + "/secrets/"
		require.Equal(t, http.StatusCreated, s.Do("PUT", secret+"a", me.Token, put).Status)
		require.Equal(t, http.StatusCreated, s.Do("PUT", secret+"b", me.Token, put).Status)
		requireProblem(t, s.Do("PUT", secret+"c", me.Token, put), http.StatusForbidden, "resource_limit_exceeded")
	})

	t.Run("agent limit; new versions are not new secrets; 402 before the handler", func(t *testing.T) {
		me := s.SignUp("agent-limits@example.com")
		vault := s.CreateVault(me.Token, "v")
		registerAgent(t, s, me.Token, map[string]any{"name": "one"})
		requireProblem(t, s.Do("POST", "/v1/agents", me.Token, map[string]any{"name": "two"}),
			http.StatusForbidden, "resource_limit_exceeded")
		put := map[string]any{"type": "password", "value": "v"}
		secret := "/v1/vaults/" + vault + "/secrets/"
		require.Equal(t, http.StatusCreated, s.Do("PUT", secret+"a", me.Token, put).Status)
		require.Equal(t, http.StatusOK, s.Do("PUT", secret+"a", me.Token, put).Status, "a new version is not a new secret")
		// Call 6 is over quota, before the handler: 402 comes first.
		requireX402(t, s, s.Do("PUT", secret+"c", me.Token, put), "/v1/vaults/"+vault+"/secrets/c")
	})

	t.Run("billing routes", func(t *testing.T) {
		me := s.SignUp("billing@example.com")
		for _, path := range []string{"/v1/billing/subscription", "/v1/billing/usage"} {
			r := s.Do("GET", path, me.Token, nil)
			require.Equal(t, http.StatusOK, r.Status, string(r.Body))
			b := r.JSON(t)
			require.Equal(t, "free", b["tier"])
			require.Equal(t, time.Now().UTC().Format("2006-01"), b["period"])
			req := b["requests"].(map[string]any)
			require.EqualValues(t, 5, req["limit"])
			require.GreaterOrEqual(t, req["used"].(float64), float64(1))
			require.Equal(t, map[string]any{"used": float64(0), "limit": float64(0)}, b["intent_transactions"])
			require.Equal(t, map[string]any{"used": float64(0), "limit": float64(10)}, b["wallets"])
			require.NotContains(t, b, "credit_balance_cents")
		}
		r := s.Do("GET", "/v1/billing/history?months=3", me.Token, nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		items := r.JSON(t)["items"].([]any)
		require.Len(t, items, 1)
		require.Equal(t, time.Now().UTC().Format("2006-01"), items[0].(map[string]any)["period"])
		requireProblem(t, s.Do("GET", "/v1/billing/history?months=0", me.Token, nil), http.StatusBadRequest, "invalid_request")
	})
}

func addCredits(t *testing.T, s *stack.Stack, orgID string, cents int64) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.DatabaseURL)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `INSERT INTO org_credits (org_id, balance_cents) VALUES ($1, $2)
		ON CONFLICT (org_id) DO UPDATE SET balance_cents = org_credits.balance_cents + $2`, orgID, cents)
	require.NoError(t, err)
}

func TestRateLimit(t *testing.T) {
	// Tiny limits: 10 requests per client IP, 2 per credential, then one
	// token every 100 s.
	s := stack.Start(t, stack.WithProxyEnv("OCV_RATE_LIMIT_IP_RATE=0.01", "OCV_RATE_LIMIT_IP_BURST=10",
		"OCV_RATE_LIMIT_CRED_RATE=0.01", "OCV_RATE_LIMIT_CRED_BURST=2"))

	requireLimited := func(t *testing.T, r stack.Response) {
		t.Helper()
		requireProblem(t, r, http.StatusTooManyRequests, "rate_limited")
		n, err := strconv.Atoi(r.Header.Get("Retry-After"))
		require.NoError(t, err)
		require.GreaterOrEqual(t, n, 1)
	}

	// Per credential, before authentication: an invalid token is limited too.
	requireProblem(t, s.Do("GET", "/v1/vaults", "bad.token.one", nil), http.StatusUnauthorized, "invalid_token")
	requireProblem(t, s.Do("GET", "/v1/vaults", "bad.token.one", nil), http.StatusUnauthorized, "invalid_token")
	requireLimited(t, s.Do("GET", "/v1/vaults", "bad.token.one", nil))

	// Per IP: public routes are limited as well; then 429 comes before 402.
	var limited bool
	for range 20 {
		if r := s.Do("GET", "/v1/health", "", nil); r.Status == http.StatusTooManyRequests {
			requireLimited(t, r)
			limited = true
			break
		}
	}
	require.True(t, limited, "the per-IP bucket ran dry")
	requireLimited(t, s.Do("GET", "/v1/vaults", "", nil))
	requireLimited(t, s.Do("GET", "/v1/vaults", "bad.token.two", nil))
}
