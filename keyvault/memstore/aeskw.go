package memstore

import (
	"crypto/aes"
	"crypto/subtle"
	"encoding/binary"
	"errors"
)

// RFC 3394 AES key wrap, the algorithm CKM_AES_KEY_WRAP runs inside an HSM.

// defaultIV is the RFC 3394 section 2.2.3.1 initial value.
var defaultIV = [8]byte{0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6}

var errKeyWrapInput = errors.New("key wrap input is not 2 or more 64-bit blocks")

// wrapKey wraps plaintext (n ≥ 2 64-bit blocks) under kek (RFC 3394 2.2.1).
func wrapKey(kek, plaintext []byte) ([]byte, error) {
	if len(plaintext) < 16 || len(plaintext)%8 != 0 {
		return nil, errKeyWrapInput
	}
	block, err := aes.NewCipher(kek)
	if err != nil {
		return nil, err
	}
	n := len(plaintext) / 8
	out := make([]byte, 8+len(plaintext))
	copy(out[:8], defaultIV[:])
	copy(out[8:], plaintext)
	// out[:8] is A, out[8i:8i+8] is R[i].
	var b [16]byte
	for j := range 6 {
		for i := 1; i <= n; i++ {
			// B = AES(K, A | R[i]); A = MSB(64, B) ^ t; R[i] = LSB(64, B)
			copy(b[:8], out[:8])
			copy(b[8:], out[8*i:8*i+8])
			block.Encrypt(b[:], b[:])
			t := uint64(n*j + i)
			binary.BigEndian.PutUint64(out[:8], binary.BigEndian.Uint64(b[:8])^t)
			copy(out[8*i:8*i+8], b[8:])
		}
	}
	return out, nil
}

// unwrapKey reverses wrapKey (RFC 3394 2.2.2) and checks the integrity value
// in constant time.
func unwrapKey(kek, ciphertext []byte) ([]byte, error) {
	if len(ciphertext) < 24 || len(ciphertext)%8 != 0 {
		return nil, errKeyWrapInput
	}
	block, err := aes.NewCipher(kek)
	if err != nil {
		return nil, err
	}
	n := len(ciphertext)/8 - 1
	var a [8]byte
	copy(a[:], ciphertext[:8])
	r := make([]byte, 8*n)
	copy(r, ciphertext[8:])
	var b [16]byte
	for j := 5; j >= 0; j-- {
		for i := n; i >= 1; i-- {
			t := uint64(n*j + i)
			binary.BigEndian.PutUint64(b[:8], binary.BigEndian.Uint64(a[:])^t) // A ^ t
			copy(b[8:], r[8*(i-1):8*i])                                        // R[i]
			block.Decrypt(b[:], b[:])                                          // B = AES-1(K, (A ^ t) | R[i])
			copy(a[:], b[:8])
			copy(r[8*(i-1):8*i], b[8:])
		}
	}
	if subtle.ConstantTimeCompare(a[:], defaultIV[:]) != 1 {
		clear(r)
		return nil, errUnwrapIntegrity
	}
	return r, nil
}

var errUnwrapIntegrity = errors.New("key wrap integrity check failed")
