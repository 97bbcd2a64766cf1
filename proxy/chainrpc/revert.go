package chainrpc

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
	"unicode"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// ABI selectors of the two revert payloads Solidity emits itself.
var (
	selectorError = [4]byte{0x08, 0xc3, 0x79, 0xa0} // Error(string)
	selectorPanic = [4]byte{0x4e, 0x48, 0x7b, 0x71} // Panic(uint256)
)

// maxReasonLen caps a decoded reason: it is contract-controlled text that ends
// up in logs and API answers.
const maxReasonLen = 512

// panicCodes names the Solidity Panic(uint256) codes.
var panicCodes = map[uint64]string{
	0x00: "generic panic",
	0x01: "assertion failed",
	0x11: "arithmetic overflow or underflow",
	0x12: "division or modulo by zero",
	0x21: "invalid enum value",
	0x22: "invalid storage byte array encoding",
	0x31: "pop on empty array",
	0x32: "array index out of bounds",
	0x41: "out of memory",
	0x51: "call to zero-initialised function",
}

// decodeRevert returns the reason carried by revert data: the message of
// Error(string), a description of Panic(uint256), or "" for anything else
// (custom errors, empty or malformed data). It never panics.
func decodeRevert(data []byte) string {
	if len(data) < 4 {
		return ""
	}
	body := data[4:]
	switch [4]byte(data[:4]) {
	case selectorError:
		s, ok := decodeABIString(body)
		if !ok {
			return ""
		}
		return sanitizeReason(s)
	case selectorPanic:
		if len(body) < 32 {
			return ""
		}
		code := new(big.Int).SetBytes(body[:32])
		name, known := "unknown panic code", false
		if code.IsUint64() {
			name, known = panicCodes[code.Uint64()]
		}
		if !known {
			name = "unknown panic code"
		}
		return fmt.Sprintf("panic 0x%x: %s", code, name)
	}
	return ""
}

// decodeABIString decodes a single ABI-encoded dynamic string argument.
func decodeABIString(b []byte) (string, bool) {
	word := func(at uint64) (uint64, bool) {
		if at > uint64(len(b)) || uint64(len(b))-at < 32 {
			return 0, false
		}
		w := new(big.Int).SetBytes(b[at : at+32])
		if !w.IsUint64() {
			return 0, false
		}
		return w.Uint64(), true
	}
	off, ok := word(0)
	if !ok {
		return "", false
	}
	n, ok := word(off)
	if !ok {
		return "", false
	}
	start := off + 32
	if n > uint64(len(b))-start { // start <= len(b) holds since word(off) succeeded
		return "", false
	}
	return string(b[start : start+n]), true
}

// sanitizeReason makes contract text safe to log: valid UTF-8, no control
// characters, bounded length.
func sanitizeReason(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	if len(s) > maxReasonLen {
		s = strings.ToValidUTF8(s[:maxReasonLen], "") + "…"
	}
	return s
}

// revertFromError extracts a revert from a node's JSON-RPC error: geth and
// most nodes answer code 3 with the revert data in the error's data field;
// others only say "execution reverted: <reason>" in the message. r scrubs a
// message-derived reason.
func revertFromError(err error, r *redactor) (*RevertError, bool) {
	var rpcErr rpc.Error
	if !errors.As(err, &rpcErr) {
		return nil, false
	}
	msg := rpcErr.Error()
	if rpcErr.ErrorCode() != 3 && !strings.Contains(strings.ToLower(msg), "revert") {
		return nil, false
	}
	var data []byte
	var dataErr rpc.DataError
	if errors.As(err, &dataErr) {
		data = revertData(dataErr.ErrorData())
	}
	rev := &RevertError{Reason: decodeRevert(data), Data: data}
	if rev.Reason == "" && len(data) == 0 {
		_, after, found := strings.Cut(msg, "execution reverted")
		if found {
			rev.Reason = sanitizeReason(r.scrub(strings.TrimSpace(strings.TrimPrefix(after, ":"))))
		}
	}
	return rev, true
}

// revertData reads revert bytes from a JSON-RPC error's data field, either a
// hex string or an object holding one under "data".
func revertData(v any) []byte {
	switch d := v.(type) {
	case string:
		b, err := hexutil.Decode(d)
		if err == nil {
			return b
		}
	case map[string]any:
		return revertData(d["data"])
	}
	return nil
}
