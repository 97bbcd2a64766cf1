package xrp

import (
	"crypto/sha256"
	"strings"
)

// rippleAlphabet is the XRP Ledger's base58 alphabet. It holds the same 58
// characters as Bitcoin's in another order, chosen so that version byte 0x00
// encodes as a leading 'r'.
const rippleAlphabet = "rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz"

// checkEncode returns base58(version ‖ payload ‖ checksum) in the Ripple
// alphabet, where checksum is the first 4 bytes of
// SHA-256(SHA-256(version ‖ payload)).
func checkEncode(version byte, payload []byte) string {
	b := make([]byte, 0, 1+len(payload)+4)
	b = append(b, version)
	b = append(b, payload...)
	first := sha256.Sum256(b)
	second := sha256.Sum256(first[:])
	b = append(b, second[:4]...)
	return encode58(b)
}

// encode58 encodes b as a big-endian base-58 number in the Ripple alphabet.
// Each leading zero byte becomes one leading rippleAlphabet[0] ('r').
func encode58(b []byte) string {
	zeros := 0
	for zeros < len(b) && b[zeros] == 0 {
		zeros++
	}
	// log(256)/log(58) < 1.37, so len*137/100+1 digits always suffice.
	digits := make([]byte, 0, (len(b)-zeros)*137/100+1)
	for _, v := range b[zeros:] {
		carry := int(v)
		// digits holds the number so far, least significant digit first:
		// multiply it by 256 and add the next byte.
		for i := range digits {
			carry += int(digits[i]) << 8
			digits[i] = byte(carry % 58)
			carry /= 58
		}
		for carry > 0 {
			digits = append(digits, byte(carry%58))
			carry /= 58
		}
	}
	var sb strings.Builder
	sb.Grow(zeros + len(digits))
	for range zeros {
		sb.WriteByte(rippleAlphabet[0])
	}
	for i := len(digits) - 1; i >= 0; i-- {
		sb.WriteByte(rippleAlphabet[digits[i]])
	}
	return sb.String()
}
