package auditlog

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/auditchain"
)

// TestPreparedEventMarksTheEntry: the entry counts as persisted only once
// the store reports the prepared event stored, whichever copy it stored.
func TestPreparedEventMarksTheEntry(t *testing.T) {
	e := &Entry{Event: auditchain.Event{Action: "secret.write"}}
	ctx := WithEntry(context.Background(), e)
	ev := FromContext(ctx).Prepare(http.StatusCreated)
	require.Equal(t, http.StatusCreated, ev.Status)
	require.Equal(t, auditchain.OutcomeSuccess, ev.Outcome)
	require.False(t, e.IsPersisted(), "prepared is not stored")

	copied := *ev // a handler may store a derived event (auth.lockout)
	copied.OnStored()
	require.True(t, e.IsPersisted())
}

func TestFromContextOutsideARequest(t *testing.T) {
	e := FromContext(context.Background())
	e.Prepare(http.StatusOK).OnStored()
	require.True(t, e.IsPersisted())
}
