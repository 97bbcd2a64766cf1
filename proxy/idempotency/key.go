package idempotency

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
)

// MaxKeyLen is the longest Idempotency-Key accepted.
const MaxKeyLen = 255

// ValidateKey checks that key is 1 to MaxKeyLen printable ASCII characters.
func ValidateKey(key string) error {
	if len(key) == 0 || len(key) > MaxKeyLen {
		return fmt.Errorf("checking key length %d: %w", len(key), ErrInvalidKey)
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x20 || c > 0x7e {
			return fmt.Errorf("checking key character at %d: %w", i, ErrInvalidKey)
		}
	}
	return nil
}

// RequestHash fingerprints a request: SHA-256 over the length-prefixed
// method and target and the SHA-256 of the body, so that no two distinct
// (method, target, body) triples share an encoding.
func RequestHash(method, target string, body []byte) []byte {
	bodySum := sha256.Sum256(body)
	h := sha256.New()
	for _, part := range [][]byte{[]byte(method), []byte(target), bodySum[:]} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write(part)
	}
	return h.Sum(nil)
}
