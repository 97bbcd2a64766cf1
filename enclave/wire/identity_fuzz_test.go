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

// FuzzDecodeIdentityMessage does the same for the identity messages.
func FuzzDecodeIdentityMessage(f *testing.F) {
	rec, _ := (&IdentityRecord{Kind: IdentityOrg, Version: 1, OrgID: "o", UserID: "u"}).Append(nil)
	mac := bytes.Repeat([]byte{1}, IdentityMACLen)
	for _, tc := range identityMessages(rec, mac) {
		b, _ := tc.in.Append(nil)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for name, tc := range identityMessages(rec, mac) {
			if err := tc.out.Decode(b); err != nil {
				continue
			}
			again, err := tc.out.Append(nil)
			if err != nil {
				t.Fatalf("%s: re-encoding a decoded message: %v", name, err)
			}
			if !bytes.Equal(again, b) {
				t.Fatalf("%s: message did not round-trip", name)
			}
		}
	})
}
