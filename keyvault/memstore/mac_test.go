package memstore

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
)

// RFC 4231 section 4 HMAC-SHA-256 vectors.
func TestMACRFC4231(t *testing.T) {
	vectors := map[string]struct {
		key       []byte
		data, tag string
	}{
		"4.3 short key": {
			key:  []byte("Jefe"),
			data: "what do ya want for nothing?",
			tag:  "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
		},
		"4.7 larger than block-size key": {
			key:  bytes.Repeat([]byte{0xaa}, 131),
			data: "Test Using Larger Than Block-Size Key - Hash Key First",
			tag:  "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
		},
	}
	for name, v := range vectors {
		t.Run(name, func(t *testing.T) {
			s, err := New()
			require.NoError(t, err)
			ref := keyvault.KeyRef{ID: "mac", Version: 1}
			s.keys[ref] = &key{alg: keyvault.HMACSHA256, hmac: v.key}
			got, err := s.MAC(t.Context(), ref, []byte(v.data))
			require.NoError(t, err)
			want, err := hex.DecodeString(v.tag)
			require.NoError(t, err)
			require.Equal(t, want, got)
		})
	}
}
