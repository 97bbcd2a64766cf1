package proxy

import (
	"net/http"
	"strings"

	"github.com/opencustody/ocv/proxy/metering/x402"
)

// Route classes for metering and idempotency, derived from the route table
// (the Route struct carries no flags): a route is paid, metered, anonymous
// (paid without a token) or idempotent by its access level, method and
// pattern.

// shareAccessPattern is share access: served without a token, so the only
// route that is paid and anonymous (payment and rate limit apply outside
// its handler).
const shareAccessPattern = "/v1/share/{id}"

// meteringExempt are the dashboard-session GETs the spec exempts from
// metering: runtimes list, runtime get, automations list. None exists yet;
// the patterns are listed so that the routes are exempt when they land.
var meteringExempt = map[string]bool{
	http.MethodGet + " /v1/runtimes":      true,
	http.MethodGet + " /v1/runtimes/{id}": true,
	http.MethodGet + " /v1/automations":   true,
}

// signingPrefixes are the signing POSTs that are not counted (spec: "signing
// POSTs not counted"), by pattern prefix, for routes still to come.
var signingPrefixes = []string{"/v1/sign", "/v1/wallets/{id}/sign", "/v1/intents/{id}/sign"}

// signingPOSTs are the agent signing routes of the Intents API (signature
// quotas apply to them instead; simulation signs nothing and is counted).
var signingPOSTs = map[string]bool{
	"/v1/agents/{id}/sign":              true,
	"/v1/agents/{id}/transactions":      true,
	"/v1/agents/{id}/transactions/sign": true,
}

func isSigningPOST(rt *Route) bool {
	if rt.Method != http.MethodPost {
		return false
	}
	if signingPOSTs[rt.Pattern] {
		return true
	}
	for _, p := range signingPrefixes {
		if rt.Pattern == p || strings.HasPrefix(rt.Pattern, p+"/") {
			return true
		}
	}
	return false
}

// isMeteredRoute reports whether calls to rt count against the monthly
// quota: every authenticated /v1 route except the exemptions and the
// signing POSTs. Public routes (token issuance, signup, health, discovery)
// are never metered.
func isMeteredRoute(rt *Route) bool {
	if rt == nil || rt.Access == Public || !strings.HasPrefix(rt.Pattern, "/v1/") {
		return false
	}
	return !meteringExempt[rt.Method+" "+rt.Pattern] && !isSigningPOST(rt)
}

// isAnonymousPaidRoute reports whether rt is paid but served without a
// token (share access).
func isAnonymousPaidRoute(rt *Route) bool {
	return rt != nil && rt.Method == http.MethodGet && rt.Pattern == shareAccessPattern
}

// isPaidRequest reports whether the payment gate applies to r: every
// metered route, and share access when the request carries an X-PAYMENT.
// Share access has no caller organization whose quota could pay, and a
// share link must keep working for its recipient, so opening a share
// without X-PAYMENT is free (choice documented in api/openapi.yaml); a
// presented payment is verified and settled by the gate (402 if refused).
func isPaidRequest(r *http.Request) bool {
	rt := routeFrom(r.Context())
	if isAnonymousPaidRoute(rt) {
		return r.Header.Get(x402.HeaderPayment) != ""
	}
	return routeMetered(rt)
}

// notIdempotent are the creating POSTs whose response carries a secret or a
// credential: their responses must not be stored (the database is
// untrusted), so Idempotency-Key is refused on them (400
// idempotency_unsupported): a retry would not be recognised.
var notIdempotent = map[string]bool{
	"/v1/auth/signup":               true, // returns tokens
	"/v1/auth/token":                true,
	"/v1/auth/api-key-token":        true,
	"/v1/auth/agent-token":          true,
	"/v1/auth/refresh":              true,
	"/v1/auth/change-password":      true, // returns fresh tokens
	"/v1/auth/set-password":         true,
	"/v1/auth/api-keys":             true, // the API key, shown once
	"/v1/agents":                    true, // the agent's API key, shown once
	"/v1/agents/{id}/rotate-key":    true,
	"/v1/secrets/{secret_id}/share": true, // the share link and passphrase
	"/v1/webhooks":                  true, // the signing secret, shown once
	"/v1/org/invite":                true, // the invitation token
}

// isIdempotentRoute reports whether Idempotency-Key applies to rt: every
// authenticated state change (POST, PUT, PATCH, DELETE) except the POSTs
// of notIdempotent. A PUT of a secret takes part: its answer carries the
// secret's metadata, never its value.
func isIdempotentRoute(rt *Route) bool {
	return isStateChange(rt) && rt.Access != Public && !notIdempotent[rt.Pattern]
}

// isStateChange reports whether rt changes state (any method but GET and
// HEAD).
func isStateChange(rt *Route) bool {
	return rt != nil && rt.Method != http.MethodGet && rt.Method != http.MethodHead
}
