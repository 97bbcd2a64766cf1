package metering_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/proxy/auth"
	"github.com/opencustody/ocv/proxy/metering"
	"github.com/opencustody/ocv/proxy/metering/x402"
	"github.com/opencustody/ocv/proxy/metering/x402/x402test"
)

const testPayTo = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"

type pipeline struct {
	h   http.Handler
	st  *fakeStore
	fac *x402test.Facilitator
	m   *metering.Meter
	key *ecdsa.PrivateKey
	clk *clock
}

// fakeAuth stands in for authentication (spec step 4): "Bearer org:<id>" is
// a valid token of organization id, any other token is invalid, and routes
// under /v1/share/ are served without one.
func fakeAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v1/share/") {
			next.ServeHTTP(w, r)
			return
		}
		org, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer org:")
		if !ok {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		ctx := auth.WithPrincipal(r.Context(), auth.Principal{Type: auth.PrincipalUser, ID: "u", OrgID: org})
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

func newPipeline(t *testing.T) *pipeline {
	t.Helper()
	p := &pipeline{st: newFakeStore(), fac: &x402test.Facilitator{}, clk: newClock()}
	k, err := crypto.GenerateKey()
	require.NoError(t, err)
	p.key = k
	cfg := metering.Config{PublicURL: "https://api.test/", Payment: x402.PaymentConfig{
		PayTo: testPayTo, FacilitatorURL: "https://facilitator.test"}}
	p.m, err = metering.New(cfg, p.st, metering.WithFacilitator(p.fac), metering.WithClock(p.clk.now))
	require.NoError(t, err)
	isPaid := func(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/v1/") && r.URL.Path != "/v1/free" }
	anonymous := func(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/v1/share/") }
	final := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	p.h = p.m.PaymentGate(isPaid, anonymous)(fakeAuth(p.m.Usage(isPaid)(final)))
	return p
}

func (p *pipeline) do(t *testing.T, path, token, payment string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, path, nil)
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	if payment != "" {
		r.Header.Set("X-PAYMENT", payment)
	}
	rec := httptest.NewRecorder()
	p.h.ServeHTTP(rec, r)
	return rec
}

func (p *pipeline) payment(t *testing.T) string {
	t.Helper()
	h, err := x402test.Header(p.m.Payments().Config(), p.key, p.clk.now())
	require.NoError(t, err)
	return h
}

func require402(t *testing.T, rec *httptest.ResponseRecorder, resource, reason string) {
	t.Helper()
	require.Equal(t, http.StatusPaymentRequired, rec.Code)
	var b x402.Body
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &b))
	require.Equal(t, 1, b.X402Version)
	require.Equal(t, reason, b.Error)
	require.Len(t, b.Accepts, 1)
	a := b.Accepts[0]
	require.Equal(t, resource, a.Resource)
	require.Equal(t, "10000", a.MaxAmountRequired)
	require.Equal(t, testPayTo, a.PayTo)
	require.Equal(t, x402.USDCBase, a.Asset)
	require.EqualValues(t, 60, a.MaxTimeoutSeconds)
	require.NotEmpty(t, a.Description)
	require.Equal(t, "application/json", a.MimeType)
}

// TestErrorsRule2: on a paid route, no token gives 402, an invalid token
// 401, a valid token within quota 200.
func TestErrorsRule2(t *testing.T) {
	p := newPipeline(t)
	p.st.setOrg("o1", "free", 0, false)
	tests := map[string]struct {
		path, token string
		payment     func() string
		wantStatus  int
		wantReason  string
		wantSettled int
	}{
		"no token, no payment":            {path: "/v1/vaults", wantStatus: 402},
		"invalid token":                   {path: "/v1/vaults", token: "bad", wantStatus: 401},
		"valid token within quota":        {path: "/v1/vaults", token: "org:o1", wantStatus: 200},
		"no token, garbage payment":       {path: "/v1/vaults", payment: func() string { return "zzz" }, wantStatus: 402, wantReason: "invalid_payload"},
		"unpaid route without token":      {path: "/v1/free", wantStatus: 401},
		"anonymous route without payment": {path: "/v1/share/s1", wantStatus: 402},
		// Paying without a token on a route that needs one: authentication
		// refuses it, so the payment is checked but never settled.
		"no token, valid payment, auth route": {path: "/v1/vaults", payment: func() string { return p.payment(t) }, wantStatus: 401},
		"anonymous route, valid payment":      {path: "/v1/share/s1", payment: func() string { return p.payment(t) }, wantStatus: 200, wantSettled: 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			before := p.fac.Calls()
			pay := ""
			if tc.payment != nil {
				pay = tc.payment()
			}
			rec := p.do(t, tc.path, tc.token, pay)
			require.Equal(t, tc.wantStatus, rec.Code)
			if tc.wantStatus == 402 {
				require402(t, rec, "https://api.test"+tc.path, tc.wantReason)
			}
			require.Equal(t, tc.wantSettled, p.fac.Calls()-before)
			if tc.wantSettled > 0 {
				require.NotEmpty(t, rec.Header().Get("X-PAYMENT-RESPONSE"))
			}
		})
	}
}

func TestUsageQuotaEdge(t *testing.T) {
	p := newPipeline(t)
	p.st.setOrg("o1", "free", 0, false)
	for i := 1; i <= 1000; i++ {
		rec := p.do(t, "/v1/vaults", "org:o1", "")
		require.Equal(t, 200, rec.Code, "call %d", i)
		if i == 1000 {
			require.Equal(t, "1000", rec.Header().Get("X-RateLimit-Requests-Used"))
			require.Equal(t, "1000", rec.Header().Get("X-RateLimit-Requests-Limit"))
			require.Empty(t, rec.Header().Get("X-Credit-Balance-Cents"), "no credit account, no header")
		}
	}
	rec := p.do(t, "/v1/vaults?page=2", "org:o1", "")
	require402(t, rec, "https://api.test/v1/vaults?page=2", "")
	require.Equal(t, "1000", rec.Header().Get("X-RateLimit-Requests-Used"))

	// Paying with X-PAYMENT: accepted once, its replay refused.
	pay := p.payment(t)
	rec = p.do(t, "/v1/vaults", "org:o1", pay)
	require.Equal(t, 200, rec.Code)
	raw, err := base64.StdEncoding.DecodeString(rec.Header().Get("X-PAYMENT-RESPONSE"))
	require.NoError(t, err)
	var settled x402.SettleResponse
	require.NoError(t, json.Unmarshal(raw, &settled))
	require.True(t, settled.Success)
	require.Equal(t, crypto.PubkeyToAddress(p.key.PublicKey).Hex(), settled.Payer)
	rec = p.do(t, "/v1/vaults", "org:o1", pay)
	require402(t, rec, "https://api.test/v1/vaults", "invalid_exact_evm_payload_nonce_used")
	require.Equal(t, 1, p.fac.Calls())

	// Settlement failure answers 402.
	p.fac.Fail = true
	rec = p.do(t, "/v1/vaults", "org:o1", p.payment(t))
	require402(t, rec, "https://api.test/v1/vaults", "settlement_failed")
}

func TestUsageCreditsBeforeX402(t *testing.T) {
	p := newPipeline(t)
	p.st.setOrg("o1", "free", 2, true)
	for range 1000 {
		require.Equal(t, 200, p.do(t, "/v1/vaults", "org:o1", "").Code)
	}
	pay := p.payment(t)
	rec := p.do(t, "/v1/vaults", "org:o1", pay)
	require.Equal(t, 200, rec.Code)
	require.Equal(t, "1", rec.Header().Get("X-Credit-Balance-Cents"))
	require.Empty(t, rec.Header().Get("X-PAYMENT-RESPONSE"), "credits are spent first; the payment is left alone")
	rec = p.do(t, "/v1/vaults", "org:o1", "")
	require.Equal(t, 200, rec.Code)
	require.Equal(t, "0", rec.Header().Get("X-Credit-Balance-Cents"))

	rec = p.do(t, "/v1/vaults", "org:o1", "")
	require402(t, rec, "https://api.test/v1/vaults", "")
	require.Equal(t, "0", rec.Header().Get("X-Credit-Balance-Cents"))
	rec = p.do(t, "/v1/vaults", "org:o1", pay)
	require.Equal(t, 200, rec.Code, "with credits gone, the payment is used")
	require.Equal(t, 1, p.fac.Calls())
}

func TestUsageUnlimitedAndExempt(t *testing.T) {
	p := newPipeline(t)
	p.st.setOrg("big", "enterprise", 0, false)
	rec := p.do(t, "/v1/vaults", "org:big", "")
	require.Equal(t, 200, rec.Code)
	require.Equal(t, "1", rec.Header().Get("X-RateLimit-Requests-Used"))
	require.Empty(t, rec.Header().Get("X-RateLimit-Requests-Limit"), "no limit header for unlimited tiers")

	p.st.setOrg("o1", "free", 0, false)
	rec = p.do(t, "/v1/free", "org:o1", "")
	require.Equal(t, 200, rec.Code)
	require.Empty(t, rec.Header().Get("X-RateLimit-Requests-Used"), "unmetered routes are not counted")
}

func TestUsageFailsClosed(t *testing.T) {
	p := newPipeline(t)
	p.st.setOrg("o1", "free", 0, false)
	p.st.failAll = errors.New("database down")
	rec := p.do(t, "/v1/vaults", "org:o1", "")
	require.Equal(t, http.StatusInternalServerError, rec.Code)
	require.NotContains(t, rec.Body.String(), "database down")
}

func TestBillingHelpers(t *testing.T) {
	p := newPipeline(t)
	p.st.setOrg("o1", "pro", 40, true)
	for range 3 {
		require.Equal(t, 200, p.do(t, "/v1/vaults", "org:o1", "").Code)
	}
	require.NoError(t, p.m.Close(context.Background()))
	sub, err := p.m.Subscription(context.Background(), "o1", 2, 4)
	require.NoError(t, err)
	raw, err := json.Marshal(sub)
	require.NoError(t, err)
	require.JSONEq(t, `{"tier":"pro","period":"2026-11",
		"requests":{"used":3,"limit":100000},
		"intent_transactions":{"used":2,"limit":1000},
		"wallets":{"used":4,"limit":10000},
		"credit_balance_cents":40}`, string(raw))

	p.clk.add(10 * 24 * time.Hour)
	require.Equal(t, 200, p.do(t, "/v1/vaults", "org:o1", "").Code)
	require.NoError(t, p.m.Close(context.Background()))
	h, err := p.m.History(context.Background(), "o1", 12)
	require.NoError(t, err)
	raw, err = json.Marshal(h)
	require.NoError(t, err)
	require.JSONEq(t, `[{"period":"2026-12","requests":{"used":1,"limit":100000}},
		{"period":"2026-11","requests":{"used":3,"limit":100000}}]`, string(raw))

	p.st.setOrg("e", "enterprise", 0, false)
	sub, err = p.m.Subscription(context.Background(), "e", 0, 0)
	require.NoError(t, err)
	require.Nil(t, sub.Requests.Limit, "unlimited is a null limit")
	require.Nil(t, sub.CreditBalanceCents)
}

func TestMeterRunReconciles(t *testing.T) {
	p := newPipeline(t)
	p.st.setOrg("o1", "free", 0, false)
	require.Equal(t, 200, p.do(t, "/v1/vaults", "org:o1", "").Code)
	require.EqualValues(t, 50, p.st.usedOf("o1", "2026-11"))
	p.clk.add(time.Minute)
	require.NoError(t, p.m.Counter().Reconcile(context.Background()))
	require.EqualValues(t, 1, p.st.usedOf("o1", "2026-11"))

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.m.Run(ctx, nil); close(done) }()
	cancel()
	<-done
}

func TestDiscovery(t *testing.T) {
	p := newPipeline(t)
	d := p.m.Discovery()
	require.True(t, d.Enabled)
	require.Equal(t, "https://api.test/v1", d.Accepts[0].Resource)
}
