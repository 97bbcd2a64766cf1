package metering

import (
	"context"
	"net/http"
	"strconv"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auth"
	"github.com/opencustody/ocv/proxy/httperr"
	"github.com/opencustody/ocv/proxy/metering/x402"
)

// Usage is spec order steps 6 and 7, placed after authentication and the IP
// filter. For an authenticated principal on a route where isMetered(r) is
// true (paid routes, minus the exemptions and signing POSTs), it counts the
// call against the organization's monthly quota. Over quota it spends
// prepaid credits first (CreditCentsPerRequest), then a valid X-PAYMENT
// (spent and settled, X-PAYMENT-RESPONSE set), and otherwise answers 402
// with the x402 body (a valid token over quota gets 402: Errors rule 2).
// It sets X-RateLimit-Requests-Used and X-RateLimit-Requests-Limit (the
// latter omitted for unlimited tiers), and X-Credit-Balance-Cents when the
// organization has a credit account. Storage failures answer 500 (fail
// closed). Requests without a principal, or already paid at the gate, pass.
func (m *Meter) Usage(isMetered func(*http.Request) bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p, ok := auth.FromContext(r.Context())
			if _, paid := Paid(r.Context()); paid || !ok || p.OrgID == "" || !isMetered(r) {
				next.ServeHTTP(w, r)
				return
			}
			ctx := r.Context()
			info, err := m.orgs.get(ctx, p.OrgID)
			if err != nil {
				httperr.Write(w, err)
				return
			}
			d, err := m.counter.Take(ctx, p.OrgID, tierOf(info.Tier))
			if err != nil {
				httperr.Write(w, err)
				return
			}
			h := w.Header()
			h.Set(HeaderRequestsUsed, strconv.FormatInt(d.Used, 10))
			if !d.Unlimited {
				h.Set(HeaderRequestsLimit, strconv.FormatInt(d.Limit, 10))
			}
			if d.Allowed {
				if info.HasCredits {
					h.Set(HeaderCreditBalance, strconv.FormatInt(info.CreditCents, 10))
				}
				next.ServeHTTP(w, r)
				return
			}
			m.overQuota(ctx, w, r, p.OrgID, info, next)
		})
	}
}

// overQuota serves a call past the monthly quota: credits, then x402.
func (m *Meter) overQuota(ctx context.Context, w http.ResponseWriter, r *http.Request, orgID string,
	info store.OrgBilling, next http.Handler) {
	h := w.Header()
	if info.HasCredits && m.cfg.CreditCentsPerRequest > 0 {
		bal, ok, err := m.orgs.spend(ctx, orgID, info, m.cfg.CreditCentsPerRequest)
		if err != nil {
			httperr.Write(w, err)
			return
		}
		h.Set(HeaderCreditBalance, strconv.FormatInt(bal, 10))
		if ok {
			next.ServeHTTP(w, r)
			return
		}
	}
	header := r.Header.Get(x402.HeaderPayment)
	if header == "" {
		m.paymentRequired(w, r, "the monthly API call quota of this organization's tier is used up", nil)
		return
	}
	res, err := m.payments.Accept(ctx, header, m.resourceURL(r), orgID)
	if err != nil {
		m.refused(w, r, err)
		return
	}
	h.Set(x402.HeaderPaymentResponse, res.Header())
	next.ServeHTTP(w, r.WithContext(context.WithValue(ctx, paidKey{}, res)))
}
