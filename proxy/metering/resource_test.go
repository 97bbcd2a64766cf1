package metering_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/httperr"
	"github.com/opencustody/ocv/proxy/metering"
)

func TestCheckResource(t *testing.T) {
	st := newFakeStore()
	st.setOrg("free-org", "free", 0, false)
	st.setOrg("ent-org", "enterprise", 0, false)
	st.setOrg("odd-org", "gold", 0, false)
	m, err := metering.New(metering.Config{}, st)
	require.NoError(t, err)

	tests := map[string]struct {
		org     string
		kind    metering.Resource
		current int64
		wantErr error
	}{
		"ok below the cap":           {org: "free-org", kind: metering.ResourceVaults, current: 4},
		"fail at the cap":            {org: "free-org", kind: metering.ResourceVaults, current: 5, wantErr: metering.ErrResourceLimit},
		"fail past the cap":          {org: "free-org", kind: metering.ResourceSecrets, current: 900, wantErr: metering.ErrResourceLimit},
		"fail agents":                {org: "free-org", kind: metering.ResourceAgents, current: 5, wantErr: metering.ErrResourceLimit},
		"fail wallets":               {org: "free-org", kind: metering.ResourceWallets, current: 10, wantErr: metering.ErrResourceLimit},
		"ok enterprise is unlimited": {org: "ent-org", kind: metering.ResourceSecrets, current: 1 << 40},
		// An unknown stored tier must not lift the caps.
		"fail unknown tier is free": {org: "odd-org", kind: metering.ResourceVaults, current: 5, wantErr: metering.ErrResourceLimit},
		"fail unknown kind":         {org: "free-org", kind: "cards", current: 0, wantErr: metering.ErrInvalidConfig},
		"fail unknown org":          {org: "nobody", kind: metering.ResourceVaults, wantErr: store.ErrNotFound},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := m.CheckResource(context.Background(), tc.org, tc.kind, tc.current)
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
}

func TestLimitErrorProblem(t *testing.T) {
	st := newFakeStore()
	st.setOrg("o", "free", 0, false)
	m, err := metering.New(metering.Config{}, st)
	require.NoError(t, err)
	err = m.CheckResource(context.Background(), "o", metering.ResourceVaults, 5)
	var le *metering.LimitError
	require.True(t, errors.As(err, &le))
	require.EqualValues(t, 5, le.Limit)
	p := httperr.Problem(err)
	require.Equal(t, http.StatusForbidden, p.Status)
	require.Equal(t, "resource_limit_exceeded", p.Type)
	require.Contains(t, p.Detail, "5 vaults")
}
