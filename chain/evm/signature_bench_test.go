package evm

import (
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

// BenchmarkRecoverableSignature measures the enclave's post-HSM step over
// a mix of recovery ids and S halves, as the HSM returns them.
func BenchmarkRecoverableSignature(b *testing.B) {
	s := newTestSigner(b, testKeyHex)
	type input struct{ digest, raw []byte }
	inputs := make([]input, 64)
	for i := range inputs {
		d := crypto.Keccak256([]byte{byte(i), 'b'})
		inputs[i] = input{d, s.rawRS(b, d, i%2 == 1)}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in := inputs[i%len(inputs)]
		if _, err := RecoverableSignature(in.digest, in.raw, s.pub); err != nil {
			b.Fatal(err)
		}
	}
}
