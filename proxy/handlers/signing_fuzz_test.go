package handlers

import (
	"errors"
	"testing"

	"github.com/opencustody/ocv/api/problem"
)

// FuzzParseAPITx: a transaction body either parses or is refused with a
// problem, never a panic (proxy/intents fuzzes the plan of parsed ones).
func FuzzParseAPITx(f *testing.F) {
	for _, seed := range []string{`{"chain_id":"base","value":"0x1"}`, `{"memo":"x"}`, `[]`, `{"value":-1}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var p *problem.Problem
		if _, err := parseAPITx(b); err != nil && !errors.As(err, &p) {
			t.Fatalf("refused without a problem: %v", err)
		}
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
