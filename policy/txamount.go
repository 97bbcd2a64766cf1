package policy

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
)

// Bounds on the decimal amounts this package parses. They keep a hostile
// "1e999999999" from allocating a huge integer.
const (
	maxAmountChars = 100 // the text of one amount
	maxAmountExp   = 100 // |exponent| of the scientific form
)

// MaxDecimals is the largest number of decimals a native asset may have
// for this package to convert amounts.
const MaxDecimals = 255

var ten = big.NewInt(10)

// Amount is a non-negative decimal number of native major units (ETH, SOL,
// …) kept as text, "" when unset. It is written as a JSON number or a JSON
// string holding one ("1.5", "1e-3"); it is turned into base units only
// when the chain's decimals are known.
type Amount string

// UnmarshalJSON reads a JSON number or decimal string; null leaves a unset.
func (a *Amount) UnmarshalJSON(b []byte) error {
	s, null, err := numberText(b)
	if err != nil {
		return err
	}
	if null {
		*a = ""
		return nil
	}
	if _, _, err := parseDecimal(s); err != nil {
		return err
	}
	*a = Amount(s)
	return nil
}

// ParseNativeAmount converts s, a non-negative decimal number of major
// units (digits, an optional fraction, an optional exponent as in JSON
// numbers), to base units with the given decimals ("1.5", 18 →
// 1500000000000000000). It refuses signs, empty text and a precision finer
// than one base unit. Errors wrap ErrInvalidAmount.
func ParseNativeAmount(s string, decimals int) (*big.Int, error) {
	m, exp, err := parseDecimal(s)
	if err != nil {
		return nil, err
	}
	return scaleUnits(m, exp, decimals, true)
}

// FormatNativeAmount writes v base units as a decimal number of major
// units, without trailing zeros (1500000000000000000, 18 → "1.5"). nil is
// "0"; a negative decimals counts as 0.
func FormatNativeAmount(v *big.Int, decimals int) string {
	if v == nil {
		return "0"
	}
	if decimals <= 0 {
		return v.String()
	}
	digits := new(big.Int).Abs(v).String()
	if len(digits) <= decimals {
		digits = strings.Repeat("0", decimals-len(digits)+1) + digits
	}
	whole, frac := digits[:len(digits)-decimals], strings.TrimRight(digits[len(digits)-decimals:], "0")
	out := whole
	if frac != "" {
		out += "." + frac
	}
	if v.Sign() < 0 {
		out = "-" + out
	}
	return out
}

// limitUnits converts a limit to base units, rounding toward zero when the
// limit is finer than one base unit: a limit never grows by conversion, so
// the rounding always errs on the strict side.
func limitUnits(a Amount, decimals int) (*big.Int, error) {
	m, exp, err := parseDecimal(string(a))
	if err != nil {
		return nil, err
	}
	return scaleUnits(m, exp, decimals, false)
}

// parseDecimal splits s into mantissa × 10^exp.
func parseDecimal(s string) (*big.Int, int, error) {
	if s == "" || len(s) > maxAmountChars {
		return nil, 0, fmt.Errorf("%w: must be 1 to %d characters", ErrInvalidAmount, maxAmountChars)
	}
	if s[0] == '-' {
		return nil, 0, fmt.Errorf("%w: must not be negative", ErrInvalidAmount)
	}
	num, expText, hasExp := strings.Cut(strings.ToLower(s), "e")
	whole, frac, hasDot := strings.Cut(num, ".")
	if !allDigits(whole) || (hasDot && !allDigits(frac)) {
		return nil, 0, fmt.Errorf("%w: must be a decimal number", ErrInvalidAmount)
	}
	exp := 0
	if hasExp {
		neg := false
		if expText != "" && (expText[0] == '+' || expText[0] == '-') {
			neg, expText = expText[0] == '-', expText[1:]
		}
		if !allDigits(expText) || len(expText) > 3 {
			return nil, 0, fmt.Errorf("%w: must have a decimal exponent", ErrInvalidAmount)
		}
		for _, c := range expText {
			exp = exp*10 + int(c-'0')
		}
		if exp > maxAmountExp {
			return nil, 0, fmt.Errorf("%w: exponent must be at most %d", ErrInvalidAmount, maxAmountExp)
		}
		if neg {
			exp = -exp
		}
	}
	m, ok := new(big.Int).SetString(whole+frac, 10)
	if !ok {
		return nil, 0, fmt.Errorf("%w: must be a decimal number", ErrInvalidAmount)
	}
	return m, exp - len(frac), nil
}

// scaleUnits returns m × 10^(exp+decimals); exact refuses a remainder,
// otherwise it is dropped.
func scaleUnits(m *big.Int, exp, decimals int, exact bool) (*big.Int, error) {
	if decimals < 0 || decimals > MaxDecimals {
		return nil, fmt.Errorf("%w: decimals must be 0 to %d", ErrInvalidAmount, MaxDecimals)
	}
	shift := exp + decimals
	if shift >= 0 {
		return new(big.Int).Mul(m, pow10(shift)), nil
	}
	q, r := new(big.Int).QuoRem(m, pow10(-shift), new(big.Int))
	if exact && r.Sign() != 0 {
		return nil, fmt.Errorf("%w: finer than one base unit at %d decimals", ErrInvalidAmount, decimals)
	}
	return q, nil
}

func pow10(n int) *big.Int {
	return new(big.Int).Exp(ten, big.NewInt(int64(n)), nil)
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// numberText returns the text of a JSON number or of a JSON string, and
// whether b is null.
func numberText(b []byte) (string, bool, error) {
	t := strings.TrimSpace(string(b))
	switch {
	case t == "null":
		return "", true, nil
	case strings.HasPrefix(t, `"`):
		var s string
		if err := json.Unmarshal([]byte(t), &s); err != nil {
			return "", false, fmt.Errorf("%w: must be a number or a decimal string", ErrInvalidAmount)
		}
		return s, false, nil
	case t != "" && (t[0] == '-' || (t[0] >= '0' && t[0] <= '9')) && json.Valid([]byte(t)):
		return t, false, nil
	}
	return "", false, fmt.Errorf("%w: must be a number or a decimal string", ErrInvalidAmount)
}

// parseInteger reads a non-negative integer written as a JSON number or a
// decimal string ("1e9" and "2.0" are integers too).
func parseInteger(b []byte) (*big.Int, bool, error) {
	s, null, err := numberText(b)
	if err != nil || null {
		return nil, null, err
	}
	v, err := ParseNativeAmount(s, 0)
	if err != nil {
		return nil, false, fmt.Errorf("%w: must be a non-negative integer", ErrInvalidAmount)
	}
	return v, false, nil
}
