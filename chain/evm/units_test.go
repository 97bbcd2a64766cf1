package evm

import (
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func bigInt(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic("bad test number " + s)
	}
	return v
}

func TestParseTokenAmount(t *testing.T) {
	tests := map[string]struct {
		in       string
		decimals int
		want     string
		wantErr  error
	}{
		"ok usdc 1.5":                   {in: "1.5", decimals: 6, want: "1500000"},
		"ok whole":                      {in: "42", decimals: 6, want: "42000000"},
		"ok full fraction":              {in: "0.000001", decimals: 6, want: "1"},
		"ok zero decimals":              {in: "7", decimals: 0, want: "7"},
		"ok leading zeros":              {in: "007.10", decimals: 2, want: "710"},
		"ok max uint256":                {in: "115792089237316195423570985008687907853269984665640564039457584007913129639935", decimals: 0, want: "115792089237316195423570985008687907853269984665640564039457584007913129639935"},
		"fail too many fraction digits": {in: "1.0000001", decimals: 6, wantErr: ErrInvalidAmount},
		"fail fraction with 0 decimals": {in: "1.5", decimals: 0, wantErr: ErrInvalidAmount},
		"fail negative":                 {in: "-1", decimals: 6, wantErr: ErrInvalidAmount},
		"fail plus":                     {in: "+1", decimals: 6, wantErr: ErrInvalidAmount},
		"fail empty":                    {in: "", decimals: 6, wantErr: ErrInvalidAmount},
		"fail exponent":                 {in: "1e6", decimals: 6, wantErr: ErrInvalidAmount},
		"fail hex":                      {in: "0x10", decimals: 6, wantErr: ErrInvalidAmount},
		"fail spaces":                   {in: " 1", decimals: 6, wantErr: ErrInvalidAmount},
		"fail comma":                    {in: "1,5", decimals: 6, wantErr: ErrInvalidAmount},
		"fail two dots":                 {in: "1.2.3", decimals: 6, wantErr: ErrInvalidAmount},
		"fail leading dot":              {in: ".5", decimals: 6, wantErr: ErrInvalidAmount},
		"fail trailing dot":             {in: "5.", decimals: 6, wantErr: ErrInvalidAmount},
		"fail unicode digit":            {in: "١", decimals: 0, wantErr: ErrInvalidAmount},
		"fail overflow":                 {in: "115792089237316195423570985008687907853269984665640564039457584007913129639936", decimals: 0, wantErr: ErrInvalidAmount},
		"fail huge input":               {in: strings.Repeat("9", 200), decimals: 0, wantErr: ErrInvalidAmount},
		"fail decimals 78":              {in: "1", decimals: 78, wantErr: ErrInvalidAmount},
		"fail decimals -1":              {in: "1", decimals: -1, wantErr: ErrInvalidAmount},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := ParseTokenAmount(tc.in, tc.decimals)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Equal(t, tc.want, got.String())
				require.Equal(t, strings.TrimLeft(tc.in, "0"), strings.TrimLeft(FormatTokenAmount(got, tc.decimals), "0")+trailingZeros(tc.in))
			}
		})
	}
}

// trailingZeros returns the fraction zeros FormatTokenAmount drops.
func trailingZeros(s string) string {
	if !strings.Contains(s, ".") {
		return ""
	}
	return s[len(strings.TrimRight(s, "0")):]
}

func TestWeiFromEthAndFormatEth(t *testing.T) {
	tests := map[string]struct {
		eth     string
		wei     string
		format  string
		wantErr error
	}{
		"ok one":            {eth: "1", wei: "1000000000000000000", format: "1"},
		"ok fraction":       {eth: "1.5", wei: "1500000000000000000", format: "1.5"},
		"ok one wei":        {eth: "0.000000000000000001", wei: "1", format: "0.000000000000000001"},
		"ok zero":           {eth: "0", wei: "0", format: "0"},
		"ok trailing zeros": {eth: "2.50", wei: "2500000000000000000", format: "2.5"},
		"fail 19 decimals":  {eth: "0.0000000000000000001", wantErr: ErrInvalidAmount},
		"fail negative":     {eth: "-0.1", wantErr: ErrInvalidAmount},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := WeiFromEth(tc.eth)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Equal(t, tc.wei, got.String())
				require.Equal(t, tc.format, FormatEth(got))
			}
		})
	}
	require.Equal(t, "0", FormatEth(nil))
	require.Equal(t, "-1.25", FormatEth(bigInt("-1250000000000000000")))
	require.Equal(t, "123", FormatTokenAmount(big.NewInt(123), 0))
}

func TestParseQuantity(t *testing.T) {
	tests := map[string]struct {
		in      string
		want    string
		wantErr error
	}{
		"ok hex":                      {in: "0x3b9aca00", want: "1000000000"},
		"ok hex upper":                {in: "0X3B9ACA00", want: "1000000000"},
		"ok hex zero":                 {in: "0x0", want: "0"},
		"ok decimal":                  {in: "1000000000", want: "1000000000"},
		"ok hex max":                  {in: "0x" + strings.Repeat("f", 64), want: maxUint256.String()},
		"fail empty":                  {in: "", wantErr: ErrInvalidAmount},
		"fail bare 0x":                {in: "0x", wantErr: ErrInvalidAmount},
		"fail negative":               {in: "-5", wantErr: ErrInvalidAmount},
		"fail negative hex":           {in: "0x-5", wantErr: ErrInvalidAmount},
		"fail hex letters in decimal": {in: "ff", wantErr: ErrInvalidAmount},
		"fail underscore":             {in: "1_000", wantErr: ErrInvalidAmount},
		"fail 257 bits":               {in: "0x1" + strings.Repeat("0", 64), wantErr: ErrInvalidAmount},
		"fail fraction":               {in: "1.5", wantErr: ErrInvalidAmount},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := ParseQuantity(tc.in)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Equal(t, tc.want, got.String())
			}
		})
	}
}
