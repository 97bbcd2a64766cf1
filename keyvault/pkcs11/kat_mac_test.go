//go:build cgo

package pkcs11_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
	"github.com/opencustody/ocv/keyvault/pkcs11"
)

// TestMACRFC4231 runs the RFC 4231 HMAC-SHA-256 vectors whose keys are at
// least 32 bytes (test cases 6 and 7) through the Store's CKM_SHA256_HMAC.
func TestMACRFC4231(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ref := keyvault.KeyRef{ID: "mac/rfc4231", Version: 1}
	require.NoError(t, pkcs11.ImportHMACKey(t.Context(), s, ref, bytes.Repeat([]byte{0xaa}, 131)))
	info, err := s.Key(t.Context(), ref)
	require.NoError(t, err)
	require.Equal(t, keyvault.HMACSHA256, info.Algorithm)
	vectors := map[string]struct{ data, tag string }{
		"4.7 larger than block-size key": {
			data: "Test Using Larger Than Block-Size Key - Hash Key First",
			tag:  "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
		},
		"4.8 larger than block-size key and data": {
			data: "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.",
			tag:  "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
		},
	}
	for name, v := range vectors {
		t.Run(name, func(t *testing.T) {
			got, err := s.MAC(t.Context(), ref, []byte(v.data))
			require.NoError(t, err)
			require.Equal(t, unhex(t, v.tag), got)
		})
	}
}
