package auditlog

import (
	"context"
	"sync/atomic"

	"github.com/opencustody/ocv/internal/auditchain"
)

// Entry is the audit record of the request in flight. The audit middleware
// creates it; authentication fills in the actor, handlers the resource. A
// handler that changes state records the event in its own transaction
// (Prepare, then Persisted); for every other request the middleware stores
// it before the response leaves.
type Entry struct {
	Event     auditchain.Event
	persisted atomic.Bool
}

type entryKey struct{}

// WithEntry returns ctx carrying e.
func WithEntry(ctx context.Context, e *Entry) context.Context {
	return context.WithValue(ctx, entryKey{}, e)
}

// FromContext returns the request's entry; outside a request it returns a
// throwaway entry so that callers need no nil checks.
func FromContext(ctx context.Context) *Entry {
	if e, ok := ctx.Value(entryKey{}).(*Entry); ok {
		return e
	}
	return &Entry{}
}

// SetResource names what the request touches (never what it contains).
func (e *Entry) SetResource(resource string) { e.Event.Resource = resource }

// SetOrg attributes the event to an organization (for sign-up and sign-in,
// whose caller is not authenticated yet).
func (e *Entry) SetOrg(orgID, actorType, actorID string) {
	e.Event.OrgID, e.Event.ActorType, e.Event.ActorID = orgID, actorType, actorID
}

// Prepare returns the event as it will be when the request succeeds with
// status, for a handler to pass to the store's write. Once the write's
// transaction commits, the store marks the entry persisted, so the
// middleware does not store it again.
func (e *Entry) Prepare(status int) *auditchain.Event {
	ev := e.Event
	ev.Status, ev.Outcome = status, auditchain.OutcomeFor(status)
	ev.OnStored = e.markPersisted
	return &ev
}

// markPersisted records that a write's transaction stored the event. Store
// writes may run on other goroutines than the request's, hence the atomic.
func (e *Entry) markPersisted() { e.persisted.Store(true) }

// IsPersisted reports whether a write stored the event.
func (e *Entry) IsPersisted() bool { return e.persisted.Load() }
