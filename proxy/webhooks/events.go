package webhooks

// Events are the event names a webhook may subscribe to (spec, Events /
// Event names), in the spec's order. Handlers emit only names from here.
var Events = []string{
	// Treasury and wallets
	"wallet.transfer.sent", "wallet.transfer.received", "deposit.received", "deposit.confirmed",
	"deposit.credited", "deposit_destination.created", "fiat.onramp.completed", "fiat.offramp.completed",
	"internal_transfer.completed",
	// Multisig proposals
	"proposal.created", "proposal.signed", "proposal.executed", "proposal.cancelled",
	// Agent signing
	"agent.transaction.broadcast", "agent.transaction.signed", "signing_key.rotated",
	// Policies
	"policy.created", "policy.updated", "policy.deleted",
	// Cards
	"card.ordered", "card.ready", "card.revealed", "card.voided", "card.depleted",
	"card.orphaned_payment", "card.rejected",
	// Approvals
	"approval.created", "approval.decided", "pending_approval.created", "pending_approval.approved",
	"pending_approval.rejected", "pending_approval.executed", "pending_approval.expired",
	// Platform
	"platform.user.connected", "platform.user.claimed", "platform.user.disconnected",
	"platform.bootstrap.completed", "platform.grant.created", "platform.grant.revoked",
	// Policy backend
	"policy_backend.circuit_breaker_opened", "policy_backend.circuit_breaker_closed",
	// Also named as webhook events
	"tx.awaiting_approval", "sign.awaiting_approval", "automation.run.failed",
}

var knownEvents = func() map[string]bool {
	m := make(map[string]bool, len(Events))
	for _, e := range Events {
		m[e] = true
	}
	return m
}()

// IsKnownEvent reports whether name is in Events; webhook create and update
// use it to refuse subscriptions to names that are never emitted.
func IsKnownEvent(name string) bool { return knownEvents[name] }
