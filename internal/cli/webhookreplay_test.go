package cli

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseReplayArgs(t *testing.T) {
	const hook, del = "0193a4f1-7c2e-7b1a-9d3e-5f6a7b8c9d0e", "0193a4f1-7c2e-7b1a-9d3e-5f6a7b8c9d0f"
	const t1, t2 = "2026-11-24T00:00:00Z", "2026-11-25T00:00:00Z"
	tests := map[string]struct {
		pos      []string
		from, to string
		want     replayArgs
		wantErr  error
	}{
		"one delivery":          {pos: []string{hook, del}, want: replayArgs{hook: hook, delivery: del}},
		"range":                 {pos: []string{hook}, from: t1, to: t2, want: replayArgs{hook: hook, from: t1, to: t2}},
		"fail no delivery":      {pos: []string{hook}, wantErr: ErrUsage},
		"fail range and id":     {pos: []string{hook, del}, from: t1, to: t2, wantErr: ErrUsage},
		"fail from without to":  {pos: []string{hook}, from: t1, wantErr: ErrUsage},
		"fail not a uuid":       {pos: []string{hook, "../../admin"}, wantErr: ErrUsage},
		"fail not RFC 3339":     {pos: []string{hook}, from: "yesterday", to: t2, wantErr: ErrUsage},
		"fail too many":         {pos: []string{hook, del, del}, wantErr: ErrUsage},
		"fail webhook not uuid": {pos: []string{"x"}, from: t1, to: t2, wantErr: ErrUsage},
		"range with fractional": {pos: []string{hook}, from: "2026-11-24T00:00:00.5Z", to: t2, want: replayArgs{hook: hook, from: "2026-11-24T00:00:00.5Z", to: t2}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := parseReplayArgs(tc.pos, tc.from, tc.to)
			require.ErrorIs(t, err, tc.wantErr)
			require.Equal(t, tc.want, got)
		})
	}
}
