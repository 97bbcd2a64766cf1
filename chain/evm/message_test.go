package evm

import (
	"encoding/hex"
	"testing"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"
)

func TestPersonalMessageHash(t *testing.T) {
	// Vectors of ethers.hashMessage (its documentation's examples and more).
	tests := map[string]struct {
		msg  []byte
		want string
	}{
		"hello world":  {msg: []byte("Hello World"), want: "a1de988600a42c4b4ab089b619297c17d53cffae5d5120d82d8a92d0bb3b78f2"},
		"bytes 0x4243": {msg: []byte{0x42, 0x43}, want: "0d3abc18ec299cf9b42ba439ac6f7e3e6ec9f5c048943704e30fc2d9c7981438"},
		"empty":        {msg: nil, want: "5f35dce98ba4fba25530a026ed80b2cecdaa31091ba4958b99b52ea1d068adad"},
		"utf-8":        {msg: []byte("héllo 👋"), want: "6012c49c88fb116b115950088259de005c4bc0c9b45041c9dd989d76a43b9b00"},
	}
	s := newTestSigner(t, testKeyHex)
	addr, err := Address(s.pub)
	require.NoError(t, err)
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			h := PersonalMessageHash(tc.msg)
			require.Equal(t, tc.want, hex.EncodeToString(h))
			require.Equal(t, accounts.TextHash(tc.msg), h)
			sig := s.signRecoverable(t, h, true)
			pub, err := crypto.SigToPub(h, sig)
			require.NoError(t, err)
			require.Equal(t, addr, crypto.PubkeyToAddress(*pub))
		})
	}
}

func TestDecodeMessage(t *testing.T) {
	tests := map[string]struct {
		in   string
		want []byte
	}{
		"hex":            {in: "0x4243", want: []byte{0x42, 0x43}},
		"hex upper":      {in: "0xDEADbeef", want: []byte{0xde, 0xad, 0xbe, 0xef}},
		"bare 0x":        {in: "0x", want: []byte{}},
		"text":           {in: "Hello World", want: []byte("Hello World")},
		"odd hex":        {in: "0x123", want: []byte("0x123")},
		"not hex":        {in: "0xhello", want: []byte("0xhello")},
		"upper X prefix": {in: "0X4243", want: []byte("0X4243")},
		"empty":          {in: "", want: []byte{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, DecodeMessage(tc.in))
		})
	}
}
