// Package webhooks is the self-contained core of webhook delivery: SSRF
// validation of destination URLs, an HTTP client that re-checks the resolved
// address at connect time, the signed delivery format, the retry policy and
// a worker that drains a delivery outbox. Storage stays behind the Outbox
// interface; the PostgreSQL implementation lives in the store.
//
// Trust level: untrusted (proxy side). A webhook secret is a credential: it
// is used only to compute signatures and never appears in an error, a log
// line or a Result. Destination URLs may carry tokens in their path or query
// (many receivers work that way), so errors and logs name the host at most.
//
// # Destinations (SSRF)
//
// ValidateURL runs at create and at update time and again before every send.
// It parses the host the way a browser or inet_aton would (so 2130706433,
// 0177.0.0.1, 0x7f.1 and 127.1 all mean 127.0.0.1) and judges the resulting
// address; names are judged by suffix (localhost, .internal, .local, ...)
// without resolving them. The client from NewClient then checks the address
// it is actually about to connect to, in the dialer's Control hook, so a name
// that resolves to a private address (DNS rebinding, wildcard DNS services)
// is refused at connect time. Redirects are never followed.
//
// Options.AllowLoopback is a TEST-ONLY switch that admits 127.0.0.0/8 and ::1
// so that end-to-end tests can run a real receiver on 127.0.0.1. It must
// never be settable from production configuration.
//
// # Delivery format
//
// Every delivery is an HTTP POST whose JSON body is a Payload:
//
//	{"id":"<event id>","event":"policy.created","attempt":1,
//	 "timestamp":"2026-11-22T12:00:00Z","data":{...}}
//
// X-Webhook-Signature is the lowercase hex HMAC-SHA256 of the raw body keyed
// by the webhook secret. Because the event id, attempt and timestamp are in
// the body, the signature covers them: a receiver verifies the signature in
// constant time, refuses a timestamp outside its tolerance (Verify) and
// deduplicates on the event id. VERIFY.md has receiver code in Go, Python
// and JavaScript.
//
// # Retries
//
// The first attempt is followed by up to 56 retries (the spec's "retry up
// to 5 times" is a floor this exceeds on purpose), so at most 57 attempts.
// Any 2xx is delivered; any other status (410 included), a transport error
// or a timeout is a failed attempt. The delay after failed attempt n is
// half of min(1 h, 10 s × 2^(n-1)) plus a uniform draw up to the other half
// (exponential backoff with equal jitter): ceilings 10 s, 20 s, 40 s, …,
// 2560 s, then 1 h from the tenth on. However the jitter falls, a delivery
// is retried for at least 24 hours (Policy.MinRetryWindow) and at most
// about 49, then failed: the dead-letter state, kept with its history and
// counted by WorkerConfig.DeadLetters. Only a replay (the proxy's replay
// routes, owners and admins) queues a failed delivery again: the store
// resets its attempt counter, so a new series of attempts follows with the
// same event, the same payload and the same event id.
//
// # Outbox and worker
//
// A Worker polls its Outbox every 5 s. Claim takes due rows with
// SELECT ... FOR UPDATE SKIP LOCKED, gives them a lease (DefaultLease) and
// increments their attempt counter in the same statement, so any number of
// proxy replicas can run workers and a proxy killed mid-delivery loses
// nothing: its lease expires and another worker claims the row again. The
// delivery is at least once; receivers deduplicate on the event id.
// Complete, Reschedule and Fail record each attempt's Result (the stored
// delivery history) and release the lease.
//
// # Emitter (design note; implemented in the store)
//
// Events reach the outbox through one emitter that runs inside the
// transaction of the change it reports, so an event is recorded if and only
// if the change commits:
//
//	type Emitter interface {
//		// Emit records event name for orgID with data, inside tx.
//		Emit(ctx context.Context, tx pgx.Tx, orgID, name string, data any) error
//	}
//
// Emit inserts one events row (id, org_id, name, data, created_at) and, in
// the same statement, one webhook_deliveries row per active webhook of the
// organization subscribed to name (INSERT ... SELECT ... FROM webhooks WHERE
// org_id = $1 AND $2 = ANY(events) AND active), with attempt 0 and
// next_attempt_at = now(). The worker never sees uncommitted events, and a
// rolled-back change leaves no delivery behind. Event-triggered automations
// later read the same events rows (their own outbox cursor), so the emitter
// does not change when they arrive. Handlers call Emit after the change and
// before commit; an Emit failure fails the request (fail closed, as audit).
package webhooks
