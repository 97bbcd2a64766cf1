package main

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var errFakeHSM = errors.New("fake HSM failure")

func TestExecLocal(t *testing.T) {
	tests := map[string]struct {
		op         func(context.Context, int, int, int) error
		wantStatus int
		wantErr    error
		wantClass  string
	}{
		"ok":   {op: func(context.Context, int, int, int) error { return nil }, wantStatus: http.StatusOK},
		"fail": {op: func(context.Context, int, int, int) error { return errFakeHSM }, wantErr: errFakeHSM, wantClass: errHSM},
		// A deadline inside the HSM operation is still the HSM's failure,
		// not a request timeout.
		"fail deadline": {op: func(context.Context, int, int, int) error { return context.DeadlineExceeded },
			wantErr: context.DeadlineExceeded, wantClass: errHSM},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			sc := scenario{name: "local", local: tc.op}
			status, body, err := sc.exec(t.Context(), nil, nil, 0, 0, 1, nil)
			require.ErrorIs(t, err, tc.wantErr)
			require.Equal(t, tc.wantStatus, status)
			require.Nil(t, body)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, ErrHSM)
				require.Equal(t, tc.wantClass, classify(err))
			}
		})
	}
}

func TestRunLocal(t *testing.T) {
	var calls atomic.Uint64
	sc := scenario{name: "local", local: func(_ context.Context, w, i, _ int) error {
		calls.Add(1)
		if w == 1 && i%2 == 1 {
			return errFakeHSM
		}
		return nil
	}}
	res := run(t.Context(), nil, sc, 2, 0, 100*time.Millisecond)
	require.Equal(t, "local", res.Scenario)
	require.Equal(t, 2, res.Concurrency)
	for class := range res.Errors {
		require.Equal(t, errHSM, class, "a local failure is counted as hsm")
	}
	require.Equal(t, res.OK+res.Errors[errHSM], res.Requests)
	require.LessOrEqual(t, res.Requests, calls.Load())
}
