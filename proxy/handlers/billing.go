package handlers

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/proxy/metering"
	"github.com/opencustody/ocv/proxy/metering/x402"
)

// Metering is what the handlers use of the proxy's meter: the per-tier
// resource limits, the billing views and the x402 discovery document.
// *metering.Meter implements it.
type Metering interface {
	CheckResource(ctx context.Context, orgID string, kind metering.Resource, current int64) error
	Capped(ctx context.Context, orgID string, kind metering.Resource) (bool, error)
	Subscription(ctx context.Context, orgID string, intentsUsed, walletsUsed int64) (api.BillingSubscription, error)
	History(ctx context.Context, orgID string, months int) ([]api.BillingPeriod, error)
	Discovery() x402.Discovery
}

// ResourceCounter counts an organization's capped resources (cheap COUNT
// queries scoped by organization); *store.Store implements it.
type ResourceCounter interface {
	CountVaults(ctx context.Context, orgID string) (int64, error)
	CountSecrets(ctx context.Context, orgID string) (int64, error)
	CountAgents(ctx context.Context, orgID string) (int64, error)
	SecretExists(ctx context.Context, orgID, vaultID, path string) (bool, error)
}

// errNoMetering: the handlers run without a meter (a 500 to the client).
var errNoMetering = errors.New("metering is not configured")

// Billing history bounds, in months.
const (
	defaultHistoryMonths = 12
	maxHistoryMonths     = 36
)

// checkResource answers 403 resource_limit_exceeded (spec Errors rule 3)
// when the caller's organization may not create one more of kind. Without
// metering (unit tests) it allows everything.
func (h *Handlers) checkResource(r *http.Request, kind metering.Resource,
	count func(context.Context, string) (int64, error)) error {
	if h.Metering == nil || h.Resources == nil {
		return nil
	}
	orgID := principal(r).OrgID
	// Counting costs a scan of the organization's rows: skip it when the
	// tier sets no cap.
	if capped, err := h.Metering.Capped(r.Context(), orgID, kind); err != nil || !capped {
		return err
	}
	n, err := count(r.Context(), orgID)
	if err != nil {
		return err
	}
	return h.Metering.CheckResource(r.Context(), orgID, kind, n)
}

// BillingSubscription answers GET /v1/billing/subscription: the tier, the
// period and requests, intent_transactions and wallets as {used, limit}
// (intent_transactions: transactions signed this UTC month; wallets: active
// signing keys).
func (h *Handlers) BillingSubscription(w http.ResponseWriter, r *http.Request) error {
	if h.Metering == nil {
		return errNoMetering
	}
	org := principal(r).OrgID
	now := h.now().UTC()
	intents, err := h.Txs.CountAgentTxsSince(r.Context(), org, time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		return err
	}
	wallets, err := h.Keys.CountSigningKeys(r.Context(), org)
	if err != nil {
		return err
	}
	s, err := h.Metering.Subscription(r.Context(), org, intents, wallets)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, s)
}

// BillingUsage answers GET /v1/billing/usage: the current period's usage,
// the same body as the subscription.
func (h *Handlers) BillingUsage(w http.ResponseWriter, r *http.Request) error {
	return h.BillingSubscription(w, r)
}

// BillingHistory answers GET /v1/billing/history?months=N (1 to 36, default
// 12): monthly request counts, newest first.
func (h *Handlers) BillingHistory(w http.ResponseWriter, r *http.Request) error {
	if h.Metering == nil {
		return errNoMetering
	}
	months := defaultHistoryMonths
	if s := r.URL.Query().Get("months"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxHistoryMonths {
			return problem.BadRequest(problem.TypeInvalidRequest, "months must be an integer from 1 to 36")
		}
		months = n
	}
	items, err := h.Metering.History(r.Context(), principal(r).OrgID, months)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, api.BillingHistory{Items: items})
}

// X402Discovery answers GET /.well-known/x402: how to pay for API calls.
func (h *Handlers) X402Discovery(w http.ResponseWriter, r *http.Request) error {
	if h.Metering == nil {
		return errNoMetering
	}
	return writeJSON(w, http.StatusOK, h.Metering.Discovery())
}

func (h *Handlers) countVaults(ctx context.Context, orgID string) (int64, error) {
	return h.Resources.CountVaults(ctx, orgID)
}

func (h *Handlers) countAgents(ctx context.Context, orgID string) (int64, error) {
	return h.Resources.CountAgents(ctx, orgID)
}

// checkNewSecret applies the secrets limit to a write that creates a new
// path; a new version of an existing secret is always allowed. The
// existence check runs only when the organization is at its limit.
func (h *Handlers) checkNewSecret(r *http.Request, vaultID, path string) error {
	err := h.checkResource(r, metering.ResourceSecrets, func(ctx context.Context, orgID string) (int64, error) {
		return h.Resources.CountSecrets(ctx, orgID)
	})
	if err == nil || !errors.Is(err, metering.ErrResourceLimit) {
		return err
	}
	exists, xerr := h.Resources.SecretExists(r.Context(), principal(r).OrgID, vaultID, path)
	if xerr != nil {
		return xerr
	}
	if exists {
		return nil
	}
	return err
}
