package metering

import (
	"context"
	"net/http"
	"strings"

	"github.com/opencustody/ocv/proxy/httperr"
	"github.com/opencustody/ocv/proxy/metering/x402"
)

// HeaderCreditBalance and the quota headers (spec order step 7).
const (
	HeaderRequestsUsed  = "X-RateLimit-Requests-Used"
	HeaderRequestsLimit = "X-RateLimit-Requests-Limit"
	HeaderCreditBalance = "X-Credit-Balance-Cents"
)

type paidKey struct{}

// Paid returns the settlement of the X-PAYMENT that paid for the request,
// if one did.
func Paid(ctx context.Context) (x402.SettleResponse, bool) {
	s, ok := ctx.Value(paidKey{}).(x402.SettleResponse)
	return s, ok
}

// PaymentGate is spec order step 3, placed after the global rate limit and
// before authentication. On a route where isPaid(r) is true:
//
//   - with an Authorization header it does nothing: authentication decides
//     (an invalid token gets 401) and Usage meters the call;
//   - without one and without a valid X-PAYMENT it answers 402 with the x402
//     body (spec Errors rule 2: no token gives 402, not 401);
//   - without one but with a valid X-PAYMENT, on a route where anonymous(r)
//     is true (served without a token, such as share access), the payment is
//     spent and settled here, X-PAYMENT-RESPONSE is set and Paid(ctx)
//     reports it;
//   - without one but with a valid X-PAYMENT on a route that needs a token,
//     the payment is only verified, not spent, and the request goes on to
//     authentication, which answers 401: nobody pays for a refused request.
//
// anonymous may be nil (no such route).
func (m *Meter) PaymentGate(isPaid, anonymous func(*http.Request) bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !isPaid(r) || strings.TrimSpace(r.Header.Get("Authorization")) != "" {
				next.ServeHTTP(w, r)
				return
			}
			header := r.Header.Get(x402.HeaderPayment)
			if header == "" {
				m.paymentRequired(w, r, "this route is paid: present a bearer token with quota left, or an X-PAYMENT", nil)
				return
			}
			if anonymous == nil || !anonymous(r) {
				if _, err := m.payments.Check(header); err != nil {
					m.paymentRequired(w, r, "the X-PAYMENT header was refused", err)
					return
				}
				next.ServeHTTP(w, r)
				return
			}
			res, err := m.payments.Accept(r.Context(), header, m.resourceURL(r), "")
			if err != nil {
				m.refused(w, r, err)
				return
			}
			w.Header().Set(x402.HeaderPaymentResponse, res.Header())
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), paidKey{}, res)))
		})
	}
}

// refused answers a payment that Accept did not take: 402 when the payment
// itself is at fault, 500 (fail closed) when storage failed.
func (m *Meter) refused(w http.ResponseWriter, r *http.Request, err error) {
	if x402.IsPaymentError(err) {
		m.paymentRequired(w, r, "the X-PAYMENT header was refused", err)
		return
	}
	httperr.Write(w, err)
}
