package wire

import (
	"bytes"
	"testing"
)

// FuzzDecodeIdentityRecord: whatever decodes as an identity record
// re-encodes to the same bytes (one record, one encoding).
func FuzzDecodeIdentityRecord(f *testing.F) {
	for _, r := range sampleRecords() {
		b, _ := r.Append(nil)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var r IdentityRecord
		if err := r.Decode(b); err != nil {
			return
		}
		again, err := r.Append(nil)
		if err != nil {
			t.Fatalf("re-encoding a decoded record: %v", err)
		}
		if !bytes.Equal(again, b) {
			t.Fatal("identity record did not round-trip")
		}
	})
}
