package policy

import (
	"fmt"
	"net/netip"
	"strings"
	"time"
)

// Request is one secret read or write to decide.
type Request struct {
	PrincipalType string     // PrincipalUser or PrincipalAgent
	PrincipalID   string     // the caller's id
	Path          string     // the decoded secret path; Evaluate re-checks its form
	Permission    Permission // read or write
	ClientIP      netip.Addr // the zero Addr when unknown
	Environment   string     // the agent's environment tag, "" when none
	Now           time.Time  // required; the zero time denies
}

// Decision is the outcome of Evaluate.
type Decision struct {
	Allowed  bool
	PolicyID string // the deciding policy; "" when none decided
	Reason   string // short and fixed; never carries a value or a token
}

// Reasons a Decision may carry.
const (
	ReasonAllowed        = "allowed by policy"
	ReasonDenied         = "denied by policy"
	ReasonDeniedUnknown  = "denied by policy: a condition could not be evaluated"
	ReasonNoMatch        = "no matching policy"
	ReasonInvalidPolicy  = "a policy for this principal is invalid"
	ReasonInvalidRequest = "invalid request: principal, permission or time missing"
	ReasonInvalidPath    = "invalid secret path"
)

// Err returns nil when d allows, else an error wrapping ErrDenied.
func (d Decision) Err() error {
	if d.Allowed {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrDenied, d.Reason)
}

// Evaluate decides req against policies (SPEC-DECISIONS "Paths and
// policies"). A policy applies when it targets the caller (type and id),
// has not expired at req.Now, names req.Permission, its pattern matches
// req.Path and its conditions hold. Of the applying policies the highest
// Priority wins; at equal priority a deny beats an allow; among equals the
// lowest ID decides, so the answer never depends on the slice order.
// Nothing applying → deny.
//
// Fail-closed rules: a condition that cannot be evaluated (an IP condition
// without a client address) never lets an allow apply, and it lets a deny
// apply, since the deny might have held; a policy that targets the caller
// but fails Validate denies the whole request (a broken deny must not
// silently disappear); an invalid path, permission, principal or a zero Now
// denies. Owners and admins bypass policies: that check is the caller's
// (Role.BypassesPolicies).
func Evaluate(policies []Policy, req Request) Decision {
	if req.Now.IsZero() || idProblem(req.PrincipalID) != "" ||
		(req.PrincipalType != PrincipalUser && req.PrincipalType != PrincipalAgent) ||
		(req.Permission != PermissionRead && req.Permission != PermissionWrite) {
		return Decision{Reason: ReasonInvalidRequest}
	}
	if pathProblem(req.Path) != "" {
		return Decision{Reason: ReasonInvalidPath}
	}
	segs := strings.Split(req.Path, "/")
	var work int
	var best *Policy
	bestUnknown := false
	for i := range policies {
		p := &policies[i]
		if p.PrincipalType != req.PrincipalType || p.PrincipalID != req.PrincipalID || p.expired(req.Now) {
			continue
		}
		if p.Validate() != nil {
			return Decision{PolicyID: p.ID, Reason: ReasonInvalidPolicy}
		}
		if !p.names(req.Permission) || !matchTokens(compilePattern(p.Pattern), segs, &work) {
			continue
		}
		t := p.Conditions.eval(&req)
		if t == truthFails || (t == truthUnknown && p.Effect == EffectAllow) {
			continue
		}
		if best == nil || outranks(p, best) {
			best, bestUnknown = p, t == truthUnknown
		}
	}
	switch {
	case best == nil:
		return Decision{Reason: ReasonNoMatch}
	case best.Effect == EffectAllow:
		return Decision{Allowed: true, PolicyID: best.ID, Reason: ReasonAllowed}
	case bestUnknown:
		return Decision{PolicyID: best.ID, Reason: ReasonDeniedUnknown}
	default:
		return Decision{PolicyID: best.ID, Reason: ReasonDenied}
	}
}

// outranks reports whether p beats q: higher priority, then deny over
// allow, then the lower ID.
func outranks(p, q *Policy) bool {
	if p.Priority != q.Priority {
		return p.Priority > q.Priority
	}
	if p.Effect != q.Effect {
		return p.Effect == EffectDeny
	}
	return p.ID < q.ID
}
