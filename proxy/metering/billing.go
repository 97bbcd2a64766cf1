package metering

import (
	"context"
	"fmt"

	"github.com/opencustody/ocv/internal/store"
)

// Quota is one {used, limit} pair of the billing routes. Limit is null for
// an unlimited tier.
type Quota struct {
	Used  int64  `json:"used"`
	Limit *int64 `json:"limit"`
}

func quota(used, limit int64) Quota {
	q := Quota{Used: used}
	if limit != Unlimited {
		q.Limit = &limit
	}
	return q
}

// Subscription is the body of GET /v1/billing/subscription (and of
// /v1/billing/usage): the tier, the current period and each quota.
// Requests.Used is the table's counter: calls served plus calls leased by
// replicas and not yet served (at most one block per replica).
type Subscription struct {
	Tier               Tier   `json:"tier"`
	Period             string `json:"period"` // "YYYY-MM", UTC
	Requests           Quota  `json:"requests"`
	IntentTransactions Quota  `json:"intent_transactions"`
	Wallets            Quota  `json:"wallets"`
	CreditBalanceCents *int64 `json:"credit_balance_cents,omitempty"` // absent without a credit account
}

// Subscription reads the organization's tier, credits and this month's
// request count, uncached. intentsUsed and walletsUsed come from the
// handler (their tables belong to other packages).
func (m *Meter) Subscription(ctx context.Context, orgID string, intentsUsed, walletsUsed int64) (Subscription, error) {
	info, err := m.st.OrgBilling(ctx, orgID)
	if err != nil {
		return Subscription{}, fmt.Errorf("reading subscription: %w", err)
	}
	period := store.UsagePeriod(m.now())
	used, err := m.st.Usage(ctx, orgID, period)
	if err != nil {
		return Subscription{}, fmt.Errorf("reading subscription: %w", err)
	}
	tier := tierOf(info.Tier)
	l := m.cfg.Tiers.For(tier)
	s := Subscription{
		Tier: tier, Period: period, Requests: quota(used, l.Requests),
		IntentTransactions: quota(intentsUsed, l.IntentTransactions), Wallets: quota(walletsUsed, l.Wallets),
	}
	if info.HasCredits {
		s.CreditBalanceCents = &info.CreditCents
	}
	return s, nil
}

// PeriodQuota is one month of GET /v1/billing/history.
type PeriodQuota struct {
	Period   string `json:"period"`
	Requests Quota  `json:"requests"`
}

// History returns up to months monthly request counts, newest first, each
// with the current tier's limit. It is monthly, from the counter's period
// rows: no per-day history is kept.
func (m *Meter) History(ctx context.Context, orgID string, months int) ([]PeriodQuota, error) {
	info, err := m.st.OrgBilling(ctx, orgID)
	if err != nil {
		return nil, fmt.Errorf("reading usage history: %w", err)
	}
	rows, err := m.st.UsageHistory(ctx, orgID, months)
	if err != nil {
		return nil, fmt.Errorf("reading usage history: %w", err)
	}
	limit := m.cfg.Tiers.For(tierOf(info.Tier)).Requests
	out := make([]PeriodQuota, 0, len(rows))
	for _, r := range rows {
		out = append(out, PeriodQuota{Period: r.Period, Requests: quota(r.Used, limit)})
	}
	return out, nil
}
