// Package outbox holds the plain rows of the webhook delivery outbox: what a
// claim returns (Delivery), what an attempt records (Result) and the lease a
// claim takes (DefaultLease). The PostgreSQL store fills and records them;
// proxy/webhooks, which owns the Outbox interface and sends the deliveries,
// reads them. Declaring them here, below both, keeps the store from
// importing anything under proxy/.
//
// Trust level: untrusted (proxy side). It imports only the standard library.
package outbox
