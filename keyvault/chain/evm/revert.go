package evm

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"
	"unicode"
)

var (
	selError = [4]byte{0x08, 0xc3, 0x79, 0xa0} // Error(string)
	selPanic = [4]byte{0x4e, 0x48, 0x7b, 0x71} // Panic(uint256)
)

// panicReasons are Solidity's documented Panic(uint256) codes.
var panicReasons = map[uint64]string{
	0x00: "generic compiler panic",
	0x01: "assertion failed",
	0x11: "arithmetic underflow or overflow",
	0x12: "division or modulo by zero",
	0x21: "invalid enum value",
	0x22: "invalid storage byte array encoding",
	0x31: "pop on empty array",
	0x32: "array index out of bounds",
	0x41: "out of memory",
	0x51: "call to zero-initialized function",
}

// maxRevertReason bounds the reason text returned; the rest is cut.
const maxRevertReason = 256

// DecodeRevert renders revert data for humans and logs: the message of
// Error(string), "panic 0x11: arithmetic underflow or overflow" for
// Panic(uint256), "" for empty data and "0x…" hex for anything else
// (custom errors, malformed data). The reason comes from a contract, so
// control characters and invalid UTF-8 are removed and the text is cut at
// 256 bytes.
func DecodeRevert(data []byte) string {
	if len(data) == 0 {
		return ""
	}
	if len(data) >= 4 {
		var sel [4]byte
		copy(sel[:], data)
		switch sel {
		case selError:
			if s, ok := abiString(data[4:]); ok {
				return sanitize(s)
			}
		case selPanic:
			if len(data) == 4+32 {
				code := new(big.Int).SetBytes(data[4:])
				reason := "unknown panic code"
				if code.IsUint64() {
					if r, ok := panicReasons[code.Uint64()]; ok {
						reason = r
					}
				}
				return fmt.Sprintf("panic 0x%x: %s", code, reason)
			}
		}
	}
	return "0x" + hex.EncodeToString(data)
}

// abiString decodes a single ABI-encoded dynamic string argument.
func abiString(b []byte) (string, bool) {
	if len(b) < 64 {
		return "", false
	}
	off := new(big.Int).SetBytes(b[:32])
	if !off.IsUint64() || off.Uint64() > uint64(len(b)-32) {
		return "", false
	}
	o := off.Uint64()
	n := new(big.Int).SetBytes(b[o : o+32])
	if !n.IsUint64() || n.Uint64() > uint64(len(b))-o-32 {
		return "", false
	}
	return string(b[o+32 : o+32+n.Uint64()]), true
}

func sanitize(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	if len(s) > maxRevertReason {
		s = strings.ToValidUTF8(s[:maxRevertReason], "") + "…"
	}
	return s
}
