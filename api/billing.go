package api

// Quota is one {used, limit} pair of the billing routes; Limit is null for
// an unlimited tier.
type Quota struct {
	Used  int64  `json:"used"`
	Limit *int64 `json:"limit"`
}

// BillingSubscription is the body of GET /v1/billing/subscription (and of
// /v1/billing/usage): the tier, the current period ("YYYY-MM", UTC) and
// each quota; credit_balance_cents is absent without a credit account.
type BillingSubscription struct {
	Tier               string `json:"tier"`
	Period             string `json:"period"`
	Requests           Quota  `json:"requests"`
	IntentTransactions Quota  `json:"intent_transactions"`
	Wallets            Quota  `json:"wallets"`
	CreditBalanceCents *int64 `json:"credit_balance_cents,omitempty"`
}

// BillingPeriod is one month of GET /v1/billing/history.
type BillingPeriod struct {
	Period   string `json:"period"`
	Requests Quota  `json:"requests"`
}

// BillingHistory is the body of GET /v1/billing/history, newest month
// first.
type BillingHistory struct {
	Items []BillingPeriod `json:"items"`
}
