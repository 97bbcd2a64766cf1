package handlers

import (
	"testing"
)

// FuzzParseAPITx: a transaction body either parses or is refused with a
// problem; a parsed one plans or is refused the same way. Never a panic.
func FuzzParseAPITx(f *testing.F) {
	for _, seed := range []string{
		`{"chain_id":"base","to":"0x00000000000000000000000000000000000000b2","value":"0x1"}`,
		`{"chain_id":8453,"to":"0x00000000000000000000000000000000000000b2","token_mint":"0x833589fcd6edb6e08f4c7c32d4f71b54bda02913","value":"1.5","token_decimals":6}`,
		`{"chain_id":1,"data":"0x6001","gas":21000,"nonce":0,"type":4,"authorization_list":[{"chain_id":1,"address":"0x00000000000000000000000000000000000000a1","nonce":1}]}`,
		`{"memo":"x"}`, `{"mode":"treasury"}`, `[]`, `{"value":-1}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tx, err := parseAPITx(b)
		if err != nil {
			return
		}
		_, _ = tx.plan(8453, func(string) (int, bool) { return 6, true })
	})
}

// FuzzDecodePrivateKey: any text decodes to a 32-byte key or is refused.
func FuzzDecodePrivateKey(f *testing.F) {
	for _, seed := range []string{"0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318",
		"KyBsPXxTuVD82av65KZkrGrWi5qLMah5SdNq6uftawDbgKa2wv6S", "TAiDppECk31iMUcdW7diBP5RKWFwgnkq5GjQGj82Ixg=", ""} {
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, s string, edwards bool) {
		chain := "ethereum"
		if edwards {
			chain = "solana"
		}
		k, err := decodePrivateKey(chain, s)
		if err == nil && len(k) != 32 {
			t.Fatalf("decoded a %d-byte key", len(k))
		}
	})
}
