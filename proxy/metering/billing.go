package metering

import (
	"context"
	"fmt"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/internal/store"
)

func quota(used, limit int64) api.Quota {
	q := api.Quota{Used: used}
	if limit != Unlimited {
		q.Limit = &limit
	}
	return q
}

// Subscription reads the organization's tier, credits and this month's
// request count, uncached. intentsUsed and walletsUsed come from the
// handler (their tables belong to other packages). Requests.Used is the
// table's counter: calls served plus calls leased by replicas and not yet
// served (at most one block per replica).
func (m *Meter) Subscription(ctx context.Context, orgID string, intentsUsed, walletsUsed int64) (api.BillingSubscription, error) {
	info, err := m.st.OrgBilling(ctx, orgID)
	if err != nil {
		return api.BillingSubscription{}, fmt.Errorf("reading subscription: %w", err)
	}
	period := store.UsagePeriod(m.now())
	used, err := m.st.Usage(ctx, orgID, period)
	if err != nil {
		return api.BillingSubscription{}, fmt.Errorf("reading subscription: %w", err)
	}
	tier := tierOf(info.Tier)
	l := m.cfg.Tiers.For(tier)
	s := api.BillingSubscription{
		Tier: string(tier), Period: period, Requests: quota(used, l.Requests),
		IntentTransactions: quota(intentsUsed, l.IntentTransactions), Wallets: quota(walletsUsed, l.Wallets),
	}
	if info.HasCredits {
		s.CreditBalanceCents = &info.CreditCents
	}
	return s, nil
}

// History returns up to months monthly request counts, newest first, each
// with the current tier's limit. It is monthly, from the counter's period
// rows: no per-day history is kept.
func (m *Meter) History(ctx context.Context, orgID string, months int) ([]api.BillingPeriod, error) {
	info, err := m.st.OrgBilling(ctx, orgID)
	if err != nil {
		return nil, fmt.Errorf("reading usage history: %w", err)
	}
	rows, err := m.st.UsageHistory(ctx, orgID, months)
	if err != nil {
		return nil, fmt.Errorf("reading usage history: %w", err)
	}
	limit := m.cfg.Tiers.For(tierOf(info.Tier)).Requests
	out := make([]api.BillingPeriod, 0, len(rows))
	for _, r := range rows {
		out = append(out, api.BillingPeriod{Period: r.Period, Requests: quota(r.Used, limit)})
	}
	return out, nil
}
