package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/internal/store/storetest"
)

// TestWriteMarksItsEventStored: a write that records its audit event tells
// the event it is stored once its transaction commits, and never when the
// transaction rolls back (the audit middleware would then drop the event).
func TestWriteMarksItsEventStored(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, vault := seedOrg(t, s)

	tests := map[string]struct {
		seal       store.SealFunc
		wantStored bool
	}{
		"committed write": {seal: sealer("a"), wantStored: true},
		// The seal fails inside the transaction after the event is queued:
		// nothing commits, so the event must not count as stored.
		"fail rolled back": {seal: func(context.Context, uint32) (store.Sealed, error) {
			return store.Sealed{}, errors.New("enclave unavailable")
		}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			stored := 0
			ev := event(org, "secret.write")
			ev.OnStored = func() { stored++ }
			_, _, err := s.PutSecret(ctx, store.Secret{OrgID: org, VaultID: vault, Path: "p/" + name, Type: "generic",
				Metadata: []byte("{}")}, tc.seal, func(bool) *auditchain.Event { return ev })
			if tc.wantStored {
				require.NoError(t, err)
				require.Equal(t, 1, stored)
			} else {
				require.Error(t, err)
				require.Zero(t, stored)
			}
		})
	}
}
