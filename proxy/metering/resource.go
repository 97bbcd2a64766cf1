package metering

import (
	"context"
	"fmt"
	"net/http"

	"github.com/opencustody/ocv/api/problem"
)

// Resource is a kind of resource capped per tier.
type Resource string

// Capped resources.
const (
	ResourceVaults  Resource = "vaults"
	ResourceSecrets Resource = "secrets"
	ResourceAgents  Resource = "agents"
	ResourceWallets Resource = "wallets"
)

// TypeResourceLimitExceeded is the problem type of a resource limit (spec
// Errors rule 3).
const TypeResourceLimitExceeded = "resource_limit_exceeded"

// Cap returns the limit of kind in l (Unlimited when unbounded) and false
// for an unknown kind.
func (l TierLimits) Cap(kind Resource) (int64, bool) {
	switch kind {
	case ResourceVaults:
		return l.Vaults, true
	case ResourceSecrets:
		return l.Secrets, true
	case ResourceAgents:
		return l.Agents, true
	case ResourceWallets:
		return l.Wallets, true
	default:
		return 0, false
	}
}

// LimitError says an organization's tier allows no more of a resource. It
// unwraps to ErrResourceLimit and to the 403 problem that the edge sends
// (httperr.Problem finds it with errors.As).
type LimitError struct {
	Resource Resource
	Tier     Tier
	Limit    int64
}

// Error describes the limit (no identifiers beyond the tier and resource).
func (e *LimitError) Error() string {
	return fmt.Sprintf("%s: %s tier allows %d %s", ErrResourceLimit, e.Tier, e.Limit, e.Resource)
}

// Unwrap returns ErrResourceLimit and the problem to answer with.
func (e *LimitError) Unwrap() []error { return []error{ErrResourceLimit, e.Problem()} }

// Problem is the 403 resource_limit_exceeded answer.
func (e *LimitError) Problem() *problem.Problem {
	return problem.New(http.StatusForbidden, TypeResourceLimitExceeded,
		fmt.Sprintf("the %s tier allows at most %d %s; upgrade the subscription or delete some", e.Tier, e.Limit, e.Resource))
}

// checkResource decides whether one more of kind may be created when
// current already exist.
func checkResource(l TierLimits, tier Tier, kind Resource, current int64) error {
	limit, ok := l.Cap(kind)
	if !ok {
		return fmt.Errorf("checking resource %q: %w", kind, ErrInvalidConfig)
	}
	if limit == Unlimited || current < limit {
		return nil
	}
	return &LimitError{Resource: kind, Tier: tier, Limit: limit}
}

// CheckResource returns nil when the organization may create one more of
// kind, current being how many it has now; otherwise a *LimitError (403
// resource_limit_exceeded). The handler calls it before creating (spec
// order step 8). The tier is read through the meter's cache.
func (m *Meter) CheckResource(ctx context.Context, orgID string, kind Resource, current int64) error {
	info, err := m.orgs.get(ctx, orgID)
	if err != nil {
		return err
	}
	tier := tierOf(info.Tier)
	return checkResource(m.cfg.Tiers.For(tier), tier, kind, current)
}

// tierOf maps a stored tier name to a Tier; an unknown name is Free.
func tierOf(s string) Tier {
	t, err := ParseTier(s)
	if err != nil {
		return TierFree
	}
	return t
}

// Capped reports whether the organization's tier limits kind at all, so
// that a handler can skip counting (a COUNT over the organization's rows)
// when the tier is unlimited.
func (m *Meter) Capped(ctx context.Context, orgID string, kind Resource) (bool, error) {
	info, err := m.orgs.get(ctx, orgID)
	if err != nil {
		return false, err
	}
	limit, ok := m.cfg.Tiers.For(tierOf(info.Tier)).Cap(kind)
	return !ok || limit != Unlimited, nil
}
