package auditlog

import (
	"context"

	"github.com/opencustody/ocv/internal/auditchain"
)

// Entry is the audit record of the request in flight. The audit middleware
// creates it; authentication fills in the actor, handlers the resource. A
// handler that changes state records the event in its own transaction
// (Prepare, then Persisted); for every other request the middleware stores
// it before the response leaves.
type Entry struct {
	Event     auditchain.Event
	persisted bool
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
// status, for a handler to insert in its own transaction.
func (e *Entry) Prepare(status int) *auditchain.Event {
	ev := e.Event
	ev.Status, ev.Outcome = status, auditchain.OutcomeFor(status)
	return &ev
}

// Persisted tells the middleware that the handler's transaction stored the
// event, so it must not be stored again.
func (e *Entry) Persisted() { e.persisted = true }

// IsPersisted reports whether a handler stored the event.
func (e *Entry) IsPersisted() bool { return e.persisted }
