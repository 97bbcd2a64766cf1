package wire

import (
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/sha256"
	"fmt"
)

// SessionKeySize is the size of the derived channel key.
const SessionKeySize = 32

// sessionInfo is the HKDF info prefix; both public keys follow it.
const sessionInfo = "ocv-channel-v1"

// DeriveSessionKey derives the channel key from the X25519 shared secret of
// priv and peer: HKDF-SHA256 with salt = the handshake nonce and info =
// "ocv-channel-v1" ‖ proxy public key ‖ enclave public key, so a key is bound
// to the exact pair of keys and to the attested nonce. priv is the caller's
// own key (either side); proxyPub and enclavePub are the 32-byte encodings
// in that fixed order.
func DeriveSessionKey(priv *ecdh.PrivateKey, peer *ecdh.PublicKey, nonce, proxyPub, enclavePub []byte) (*[SessionKeySize]byte, error) {
	if len(proxyPub) != X25519KeyLen || len(enclavePub) != X25519KeyLen {
		return nil, fmt.Errorf("%w: channel key length", ErrBadRequest)
	}
	if len(nonce) < MinHandshakeNonce {
		return nil, fmt.Errorf("%w: handshake nonce too short", ErrBadRequest)
	}
	// crypto/ecdh refuses low-order peer points (an all-zero secret).
	shared, err := priv.ECDH(peer)
	if err != nil {
		return nil, fmt.Errorf("%w: computing shared secret", ErrBadRequest)
	}
	defer clear(shared)
	info := make([]byte, 0, len(sessionInfo)+2*X25519KeyLen)
	info = append(info, sessionInfo...)
	info = append(info, proxyPub...)
	info = append(info, enclavePub...)
	okm, err := hkdf.Key(sha256.New, shared, nonce, string(info), SessionKeySize)
	if err != nil {
		return nil, fmt.Errorf("deriving session key: %w", err)
	}
	var key [SessionKeySize]byte
	copy(key[:], okm)
	clear(okm)
	return &key, nil
}

// ParseX25519PublicKey parses a 32-byte X25519 public key.
func ParseX25519PublicKey(b []byte) (*ecdh.PublicKey, error) {
	pub, err := ecdh.X25519().NewPublicKey(b)
	if err != nil {
		return nil, fmt.Errorf("%w: channel public key", ErrBadRequest)
	}
	return pub, nil
}
