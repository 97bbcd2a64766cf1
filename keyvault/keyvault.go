package keyvault

import (
	"context"
	"crypto"
)

// Algorithm names the kind of key a KeyStore holds.
type Algorithm string

// Algorithms OCV uses. AES256 keys are key-encryption keys; HMACSHA256 keys
// (generic secrets of 32 bytes) authenticate data through MACer; the others
// sign.
const (
	AES256     Algorithm = "aes-256"
	HMACSHA256 Algorithm = "hmac-sha256"
	P256       Algorithm = "ecdsa-p256"
	Secp256k1  Algorithm = "ecdsa-secp256k1"
	Ed25519    Algorithm = "ed25519"
)

// KeyRef names one version of a key. ID is a stable, printable name such as
// "kek/<org-uuid>/<vault-uuid>" or "jwt"; Version starts at 1.
type KeyRef struct {
	ID      string
	Version uint32
}

// CreateKeyRequest asks a KeyStore for a new key. Keys are never exportable.
type CreateKeyRequest struct {
	Ref       KeyRef
	Algorithm Algorithm
}

// KeyInfo describes a stored key. Public is nil for symmetric keys.
type KeyInfo struct {
	Ref       KeyRef
	Algorithm Algorithm
	Public    crypto.PublicKey // *ecdsa.PublicKey (P-256), Secp256k1Point, ed25519.PublicKey
}

// Secp256k1Point is an uncompressed secp256k1 public key (0x04 ‖ X ‖ Y, 65
// bytes). The standard library has no secp256k1 curve, so the point travels as
// bytes and chain packages parse it.
type Secp256k1Point []byte

// KeyStore holds keys inside a boundary (an HSM, or memory in unit tests).
//
// Implementations MUST be safe for concurrent use, honour ctx where they can,
// return an error wrapping ErrKeyNotFound for an unknown ref and
// ErrAlreadyExists when CreateKey names a ref that exists. No method ever
// returns private or secret key material.
type KeyStore interface {
	CreateKey(ctx context.Context, req CreateKeyRequest) (KeyInfo, error)
	// Key describes an existing key.
	Key(ctx context.Context, ref KeyRef) (KeyInfo, error)
	// Versions lists the versions stored under id in ascending order; an id
	// with no keys gives an empty slice and no error.
	Versions(ctx context.Context, id string) ([]uint32, error)
	// Signer returns a signer for an asymmetric key.
	Signer(ctx context.Context, ref KeyRef) (DigestSigner, error)
	// DestroyKey removes a key for good.
	DestroyKey(ctx context.Context, ref KeyRef) error
	Close() error
}

// KeyWrapper is the optional capability of a KeyStore to wrap data keys under
// an AES-256 key-encryption key (RFC 3394 AES key wrap) without the KEK ever
// leaving the store. Callers find it with a type assertion and answer
// ErrUnsupported when it is missing.
type KeyWrapper interface {
	// WrapKey wraps dek (16, 24 or 32 bytes) under kek.
	WrapKey(ctx context.Context, kek KeyRef, dek []byte) ([]byte, error)
	// UnwrapKey reverses WrapKey. A wrapped key that fails the RFC 3394
	// integrity check gives an error wrapping ErrUnwrap.
	UnwrapKey(ctx context.Context, kek KeyRef, wrapped []byte) ([]byte, error)
}

// MACer is the optional capability of a KeyStore to compute HMAC-SHA256
// over data with an HMACSHA256 key without the key ever leaving the store.
// Callers find it with a type assertion and answer ErrUnsupported when it is
// missing. MAC returns the 32-byte tag; a key of another algorithm gives an
// error wrapping ErrUnsupported. Verifiers recompute the tag and compare in
// constant time.
type MACer interface {
	MAC(ctx context.Context, key KeyRef, data []byte) ([]byte, error)
}

// DigestSigner signs inside the store.
//
// For ECDSA keys SignDigest takes a digest (32 bytes) and returns the raw
// 64-byte r‖s as the HSM produced it: not low-S normalised, no recovery id.
// Callers that need canonical signatures normalise them. For Ed25519 keys
// SignDigest signs the message it is given (Ed25519 hashes internally) and
// returns the 64-byte signature.
type DigestSigner interface {
	Algorithm() Algorithm
	Public() crypto.PublicKey
	SignDigest(ctx context.Context, digest []byte) ([]byte, error)
}

// ImportKeyRequest brings an existing private key into a KeyStore. Private
// is the 32-byte secp256k1 scalar or the 32-byte Ed25519 seed; callers wipe
// it once ImportKey returns.
type ImportKeyRequest struct {
	Ref       KeyRef
	Algorithm Algorithm // Secp256k1 or Ed25519
	Private   []byte
}

// KeyImporter is the optional capability of a KeyStore to take in a private
// key made elsewhere (a user's existing wallet). The key becomes as
// unextractable as a generated one; the store derives the public key
// itself. Callers find it with a type assertion and answer ErrUnsupported
// when it is missing.
type KeyImporter interface {
	ImportKey(ctx context.Context, req ImportKeyRequest) (KeyInfo, error)
}

// MaxRegisterLen bounds the value of a register.
const MaxRegisterLen = 256

// RegisterStore is the optional capability of a KeyStore to keep small named
// values durably inside its boundary, visible to every process that uses the
// same store (every enclave on one HSM token). The enclave keeps its
// anti-rollback floors in registers (enclave/internal/floors), so that a
// restart or a second enclave cannot be shown a superseded sealed record.
//
// A register is not a key: its value is not secret, only out of reach of
// the database and the proxy. Names are printable ASCII like key ids.
// ReadRegister returns an error wrapping ErrKeyNotFound for a register never
// written. WriteRegister creates or replaces the value (at most
// MaxRegisterLen bytes); it is not atomic with a read, so callers that
// advance a value read it back to learn whether they won a race.
type RegisterStore interface {
	ReadRegister(ctx context.Context, name string) ([]byte, error)
	WriteRegister(ctx context.Context, name string, value []byte) error
}

// KeyChecker is the optional capability of a KeyStore to tell, cheaply and
// without using the key, whether a key still exists: CheckKey returns nil
// when it does and an error wrapping ErrKeyNotFound when it is gone, also
// when another process on the same store destroyed it. The enclave calls it
// on every Open served from its data-key cache, so that a destroyed KEK
// stops opening values at once (crypto-shredding); implementations must
// not answer from a cache of their own.
type KeyChecker interface {
	CheckKey(ctx context.Context, ref KeyRef) error
}
