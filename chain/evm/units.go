package evm

import (
	"fmt"
	"math/big"
	"strings"
)

// maxAmountChars bounds the text of any amount so that parsing stays cheap.
const maxAmountChars = 100

// maxUint256 is 2^256 − 1.
var maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// ParseQuantity parses a non-negative integer that fits in 256 bits, written
// either as "0x"-prefixed hex or as decimal digits. Signs, spaces, empty
// strings and a bare "0x" are rejected.
func ParseQuantity(s string) (*big.Int, error) {
	if s == "" || len(s) > maxAmountChars {
		return nil, fmt.Errorf("%w: quantity %q", ErrInvalidAmount, truncate(s))
	}
	digits, base := s, 10
	if has0x(s) {
		digits, base = s[2:], 16
	}
	if digits == "" || !allDigits(digits, base) {
		return nil, fmt.Errorf("%w: quantity %q", ErrInvalidAmount, truncate(s))
	}
	v, ok := new(big.Int).SetString(digits, base)
	if !ok || v.Cmp(maxUint256) > 0 {
		return nil, fmt.Errorf("%w: quantity %q does not fit in 256 bits", ErrInvalidAmount, truncate(s))
	}
	return v, nil
}

// ParseTokenAmount converts a decimal amount such as "1.5" into base units of
// a token with the given decimals (1.5 with 6 decimals is 1500000). It
// rejects more fraction digits than decimals, signs, exponents, a leading or
// trailing dot, and results over 256 bits.
func ParseTokenAmount(decimal string, decimals int) (*big.Int, error) {
	if decimals < 0 || decimals > 77 {
		return nil, fmt.Errorf("%w: decimals %d out of range 0..77", ErrInvalidAmount, decimals)
	}
	if decimal == "" || len(decimal) > maxAmountChars {
		return nil, fmt.Errorf("%w: amount %q", ErrInvalidAmount, truncate(decimal))
	}
	whole, frac, hasDot := strings.Cut(decimal, ".")
	if whole == "" || !allDigits(whole, 10) || (hasDot && (frac == "" || !allDigits(frac, 10))) {
		return nil, fmt.Errorf("%w: amount %q is not a plain decimal number", ErrInvalidAmount, truncate(decimal))
	}
	if len(frac) > decimals {
		return nil, fmt.Errorf("%w: amount %q has more than %d fraction digits", ErrInvalidAmount, truncate(decimal), decimals)
	}
	v, ok := new(big.Int).SetString(whole+frac+strings.Repeat("0", decimals-len(frac)), 10)
	if !ok || v.Cmp(maxUint256) > 0 {
		return nil, fmt.Errorf("%w: amount %q does not fit in 256 bits", ErrInvalidAmount, truncate(decimal))
	}
	return v, nil
}

// WeiFromEth converts a decimal ETH amount (up to 18 fraction digits) to wei.
func WeiFromEth(s string) (*big.Int, error) {
	return ParseTokenAmount(s, 18)
}

// FormatTokenAmount writes base units as a decimal amount with the given
// decimals, without trailing fraction zeros ("1.5", "0.000001", "42"). A nil
// amount formats as "0".
func FormatTokenAmount(amount *big.Int, decimals int) string {
	if amount == nil {
		return "0"
	}
	sign := ""
	if amount.Sign() < 0 {
		sign = "-"
	}
	digits := new(big.Int).Abs(amount).String()
	if decimals <= 0 {
		return sign + digits
	}
	if len(digits) <= decimals {
		digits = strings.Repeat("0", decimals-len(digits)+1) + digits
	}
	whole, frac := digits[:len(digits)-decimals], strings.TrimRight(digits[len(digits)-decimals:], "0")
	if frac == "" {
		return sign + whole
	}
	return sign + whole + "." + frac
}

// FormatEth writes a wei amount as decimal ETH without trailing zeros.
func FormatEth(wei *big.Int) string {
	return FormatTokenAmount(wei, 18)
}

func allDigits(s string, base int) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
		case base == 16 && (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'):
		default:
			return false
		}
	}
	return true
}

// truncate keeps error messages short when the input is huge.
func truncate(s string) string {
	if len(s) > 24 {
		return s[:24] + "…"
	}
	return s
}
