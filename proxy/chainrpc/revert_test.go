package chainrpc

import (
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"
)

// errorString ABI-encodes Error(msg).
func errorString(msg string) []byte {
	out := append([]byte(nil), selectorError[:]...)
	out = append(out, common.LeftPadBytes([]byte{0x20}, 32)...)
	out = append(out, common.LeftPadBytes(big.NewInt(int64(len(msg))).Bytes(), 32)...)
	out = append(out, []byte(msg)...)
	if pad := len(msg) % 32; pad != 0 {
		out = append(out, make([]byte, 32-pad)...)
	}
	return out
}

func panicCode(code int64) []byte {
	return append(append([]byte(nil), selectorPanic[:]...), common.LeftPadBytes(big.NewInt(code).Bytes(), 32)...)
}

func TestDecodeRevert(t *testing.T) {
	huge := errorString("x")
	copy(huge[4+32:4+64], common.LeftPadBytes([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 32))
	badOffset := errorString("x")
	copy(badOffset[4:36], common.LeftPadBytes([]byte{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 32))

	tests := map[string]struct {
		data []byte
		want string
	}{
		"error string":          {data: errorString("insufficient balance"), want: "insufficient balance"},
		"empty error string":    {data: errorString(""), want: ""},
		"long error string":     {data: errorString(strings.Repeat("a", 40)), want: strings.Repeat("a", 40)},
		"panic overflow":        {data: panicCode(0x11), want: "panic 0x11: arithmetic overflow or underflow"},
		"panic unknown code":    {data: panicCode(0x99), want: "panic 0x99: unknown panic code"},
		"custom error":          {data: []byte{0xde, 0xad, 0xbe, 0xef, 1, 2}, want: ""},
		"empty":                 {data: nil, want: ""},
		"short selector":        {data: []byte{0x08, 0xc3}, want: ""},
		"truncated error":       {data: errorString("hello")[:40], want: ""},
		"truncated panic":       {data: panicCode(1)[:20], want: ""},
		"length beyond payload": {data: huge, want: ""},                          // adversarial: must not slice out of range
		"offset beyond payload": {data: badOffset, want: ""},                     // adversarial: must not overflow
		"control characters":    {data: errorString("a\nb\x00c"), want: "a b c"}, // log injection
		"invalid utf8":          {data: errorString("a\xffb"), want: "a\uFFFDb"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, decodeRevert(tc.data))
		})
	}
}

func TestDecodeRevertCapsLength(t *testing.T) {
	got := decodeRevert(errorString(strings.Repeat("b", 5000)))
	require.LessOrEqual(t, len(got), maxReasonLen+len("…"))
}

func TestRevertErrorText(t *testing.T) {
	tests := map[string]struct {
		err  *RevertError
		want string
	}{
		"reason": {err: &RevertError{Reason: "nope"}, want: "execution reverted: nope"},
		"custom": {err: &RevertError{Data: []byte{1, 2, 3, 4, 5}}, want: "execution reverted (custom error 0x01020304)"},
		"bare":   {err: &RevertError{}, want: "execution reverted"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.err.Error())
			require.ErrorIs(t, tc.err, ErrReverted)
		})
	}
}

func FuzzDecodeRevert(f *testing.F) {
	f.Add(errorString("seed"))
	f.Add(panicCode(0x32))
	f.Add([]byte{0x08, 0xc3, 0x79, 0xa0})
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = decodeRevert(data) // must never panic
	})
}
