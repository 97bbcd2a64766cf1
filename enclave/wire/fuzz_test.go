package wire

import (
	"testing"
)

func FuzzDecodeFrame(f *testing.F) {
	h := testHeader()
	good, _ := AppendFrame(nil, &h, []byte("body"))
	f.Add(good)
	f.Add(good[:HeaderSize])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		hdr, body, err := DecodeFrame(b)
		if err != nil {
			return
		}
		again, err := AppendFrame(nil, &hdr, body)
		if err != nil {
			t.Fatalf("re-encoding a decoded frame: %v", err)
		}
		if string(again) != string(b) {
			t.Fatal("frame did not round-trip")
		}
	})
}

// FuzzDecodeMessage feeds the same bytes to every message decoder; whatever
// decodes must re-encode to the same bytes.
func FuzzDecodeMessage(f *testing.F) {
	for _, tc := range sampleMessages() {
		b, _ := tc.in.Append(nil)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for name, tc := range sampleMessages() {
			if err := tc.out.Decode(b); err != nil {
				continue
			}
			again, err := tc.out.Append(nil)
			if err != nil {
				t.Fatalf("%s: re-encoding a decoded message: %v", name, err)
			}
			if string(again) != string(b) {
				t.Fatalf("%s: message did not round-trip", name)
			}
		}
	})
}
