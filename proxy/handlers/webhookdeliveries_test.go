package handlers

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/store"
)

func TestParseDeliveryCursor(t *testing.T) {
	at := time.Date(2026, 11, 25, 1, 2, 3, 456789000, time.UTC)
	const id = "0193a4f1-7c2e-7b1a-9d3e-5f6a7b8c9d0e"
	tests := map[string]struct {
		in      string
		want    *store.DeliveryCursor
		wantErr bool
	}{
		"empty":            {in: "", want: nil},
		"round trip":       {in: at.Format(time.RFC3339Nano) + " " + id, want: &store.DeliveryCursor{CreatedAt: at, ID: id}},
		"fail no id":       {in: at.Format(time.RFC3339Nano), wantErr: true},
		"fail bad time":    {in: "yesterday " + id, wantErr: true},
		"fail bad id":      {in: at.Format(time.RFC3339Nano) + " x'; DROP TABLE", wantErr: true},
		"fail extra field": {in: at.Format(time.RFC3339Nano) + " " + id + " more", wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := parseDeliveryCursor(tc.in)
			if tc.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			if tc.want == nil {
				require.Nil(t, got)
				return
			}
			require.True(t, tc.want.CreatedAt.Equal(got.CreatedAt))
			require.Equal(t, tc.want.ID, got.ID)
		})
	}
}
