package evm

import (
	"encoding/hex"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDecodeRevert(t *testing.T) {
	errorData := func(reason string) string {
		n := len(reason)
		padded := hex.EncodeToString([]byte(reason)) + strings.Repeat("00", (32-n%32)%32)
		return "08c379a0" + word("20") + word(strconv.FormatInt(int64(n), 16)) + padded
	}
	tests := map[string]struct {
		data string
		want string
	}{
		"empty":               {data: "", want: ""},
		"error string":        {data: errorData("ERC20: transfer amount exceeds balance"), want: "ERC20: transfer amount exceeds balance"},
		"error empty":         {data: "08c379a0" + word("20") + word("0"), want: ""},
		"error control chars": {data: errorData("bad\x1b[31m\nred"), want: "bad[31mred"},
		"panic overflow":      {data: "4e487b71" + word("11"), want: "panic 0x11: arithmetic underflow or overflow"},
		"panic unknown":       {data: "4e487b71" + word("99"), want: "panic 0x99: unknown panic code"},
		"custom error":        {data: "e450d38c" + word("1"), want: "0xe450d38c" + word("1")},
		"short":               {data: "08c379", want: "0x08c379"},
		// Lengths pointing past the data must not panic or over-read.
		"error bad offset": {data: "08c379a0" + word("ffff") + word("1"), want: "0x08c379a0" + word("ffff") + word("1")},
		"error bad length": {data: "08c379a0" + word("20") + word("ffffffff"), want: "0x08c379a0" + word("20") + word("ffffffff")},
		"panic short":      {data: "4e487b71" + "11", want: "0x4e487b7111"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			data, err := hex.DecodeString(tc.data)
			require.NoError(t, err)
			require.Equal(t, tc.want, DecodeRevert(data))
		})
	}
	long := DecodeRevert(mustHex(t, errorData(strings.Repeat("a", 300))))
	require.Equal(t, strings.Repeat("a", maxRevertReason)+"…", long)
}

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}
