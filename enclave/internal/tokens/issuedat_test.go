package tokens

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIssuedAtMs checks the millisecond issue time revocation cut-offs are
// compared with: iat_ms within iat's second (or the next whole second, the
// minter's rounding up) is taken as it is; absent, iat stands; anything
// else is refused, so a token cannot date itself past a cut-off.
func TestIssuedAtMs(t *testing.T) {
	iat := now.Unix() - 10
	tests := map[string]struct {
		iatMs   any
		want    int64
		wantErr bool
	}{
		"absent":           {iatMs: nil, want: iat * 1000},
		"same second":      {iatMs: iat*1000 + 123, want: iat*1000 + 123},
		"rounded up":       {iatMs: iat*1000 + 1000, want: iat*1000 + 1000},
		"before iat":       {iatMs: iat*1000 - 1, wantErr: true},
		"a second ahead":   {iatMs: iat*1000 + 1001, wantErr: true},
		"far ahead":        {iatMs: int64(253402300799000), wantErr: true},
		"not an integer":   {iatMs: 1.5, wantErr: true},
		"a string":         {iatMs: "1799999990000", wantErr: true},
		"platform role ok": {iatMs: iat * 1000, want: iat * 1000},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			c := with(func(m map[string]any) {
				if tc.iatMs != nil {
					m["iat_ms"] = tc.iatMs
				}
				m["platform_role"] = "admin"
			})
			got, err := f.v.Verify(t.Context(), f.mint(t, header("ocv-jwt-v1"), c), now)
			if tc.wantErr {
				require.ErrorIs(t, err, ErrInvalidToken)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got.IssuedAtMs)
			require.Equal(t, "admin", got.PlatformRole)
		})
	}
}
