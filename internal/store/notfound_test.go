package store_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/internal/store/storetest"
)

// requireNotFound checks that err is the store's not-found of resource: it
// matches store.ErrNotFound and names the resource the proxy's 404 names.
func requireNotFound(t *testing.T, err error, resource string) {
	t.Helper()
	require.ErrorIs(t, err, store.ErrNotFound)
	var nf *store.NotFoundError
	require.ErrorAs(t, err, &nf)
	require.Equal(t, resource, nf.Resource)
}

// A missing agent is named "agent" by every agent read and write, so that
// the handlers answer 404 agent without a mapping of their own.
func TestAgentNotFound(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, id := newID(), newID()
	_, err := s.GetAgent(ctx, org, id)
	requireNotFound(t, err, "agent")
	_, err = s.UpdateAgent(ctx, org, id, func(*store.Agent) error { return nil }, nil)
	requireNotFound(t, err, "agent")
	_, err = s.RotateAgentKey(ctx, org, id, []byte("hash"), "abcd", nil, nil)
	requireNotFound(t, err, "agent")
	_, _, err = s.DeactivateAgent(ctx, org, id, nil)
	requireNotFound(t, err, "agent")
}
