package policy

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseNativeAmount(t *testing.T) {
	tests := map[string]struct {
		in       string
		decimals int
		want     string
		wantErr  error
	}{
		"integer":             {in: "2", decimals: 18, want: "2000000000000000000"},
		"fraction":            {in: "1.5", decimals: 18, want: "1500000000000000000"},
		"smallest unit":       {in: "0.000000000000000001", decimals: 18, want: "1"},
		"zero":                {in: "0", decimals: 18, want: "0"},
		"exponent":            {in: "1e-3", decimals: 18, want: "1000000000000000"},
		"exponent upper plus": {in: "2.5E+2", decimals: 0, want: "250"},
		"leading zeros":       {in: "007.10", decimals: 2, want: "710"},
		"zero decimals":       {in: "42", decimals: 0, want: "42"},
		"fail too precise":    {in: "0.0000001", decimals: 6, wantErr: ErrInvalidAmount},
		"fail negative":       {in: "-1", decimals: 18, wantErr: ErrInvalidAmount},
		"fail plus sign":      {in: "+1", decimals: 18, wantErr: ErrInvalidAmount},
		"fail empty":          {in: "", decimals: 18, wantErr: ErrInvalidAmount},
		"fail bare dot":       {in: "1.", decimals: 18, wantErr: ErrInvalidAmount},
		"fail leading dot":    {in: ".5", decimals: 18, wantErr: ErrInvalidAmount},
		"fail words":          {in: "one", decimals: 18, wantErr: ErrInvalidAmount},
		"fail spaces":         {in: " 1", decimals: 18, wantErr: ErrInvalidAmount},
		"fail hex":            {in: "0x10", decimals: 18, wantErr: ErrInvalidAmount},
		"fail two dots":       {in: "1.2.3", decimals: 18, wantErr: ErrInvalidAmount},
		"fail bad exponent":   {in: "1e", decimals: 18, wantErr: ErrInvalidAmount},
		// A huge exponent must not allocate a huge integer.
		"fail huge exponent":  {in: "1e999999999", decimals: 18, wantErr: ErrInvalidAmount},
		"fail too long":       {in: strings.Repeat("9", 101), decimals: 0, wantErr: ErrInvalidAmount},
		"fail decimals range": {in: "1", decimals: -1, wantErr: ErrInvalidAmount},
		"fail decimals large": {in: "1", decimals: MaxDecimals + 1, wantErr: ErrInvalidAmount},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := ParseNativeAmount(tc.in, tc.decimals)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Equal(t, tc.want, got.String())
			}
		})
	}
}

func TestFormatNativeAmount(t *testing.T) {
	tests := map[string]struct {
		v        *big.Int
		decimals int
		want     string
	}{
		"nil":           {v: nil, decimals: 18, want: "0"},
		"zero":          {v: big.NewInt(0), decimals: 18, want: "0"},
		"one and half":  {v: big.NewInt(1_500_000_000_000_000_000), decimals: 18, want: "1.5"},
		"smallest unit": {v: big.NewInt(1), decimals: 18, want: "0.000000000000000001"},
		"whole":         {v: big.NewInt(3_000_000), decimals: 6, want: "3"},
		"no decimals":   {v: big.NewInt(42), decimals: 0, want: "42"},
		"negative":      {v: big.NewInt(-25), decimals: 1, want: "-2.5"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := FormatNativeAmount(tc.v, tc.decimals)
			require.Equal(t, tc.want, got)
			if tc.v != nil && tc.v.Sign() >= 0 {
				back, err := ParseNativeAmount(got, tc.decimals)
				require.NoError(t, err)
				require.Zero(t, back.Cmp(tc.v))
			}
		})
	}
}

func TestLimitUnitsRoundsDown(t *testing.T) {
	// A limit finer than one base unit shrinks, never grows.
	got, err := limitUnits("0.0000019", 6)
	require.NoError(t, err)
	require.Equal(t, "1", got.String())
}

func TestAmountUnmarshalJSON(t *testing.T) {
	tests := map[string]struct {
		in      string
		want    Amount
		wantErr error
	}{
		"number":        {in: `1.5`, want: "1.5"},
		"string":        {in: `"0.25"`, want: "0.25"},
		"exponent":      {in: `1e-2`, want: "1e-2"},
		"null":          {in: `null`, want: ""},
		"fail negative": {in: `-1`, wantErr: ErrInvalidAmount},
		"fail bool":     {in: `true`, wantErr: ErrInvalidAmount},
		"fail object":   {in: `{"v":1}`, wantErr: ErrInvalidAmount},
		"fail text":     {in: `"lots"`, wantErr: ErrInvalidAmount},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var a Amount = "9"
			err := json.Unmarshal([]byte(tc.in), &a)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Equal(t, tc.want, a)
			}
		})
	}
}
