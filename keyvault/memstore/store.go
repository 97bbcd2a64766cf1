package memstore

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/opencustody/ocv/keyvault"
)

// Store is an in-memory keyvault.KeyStore, keyvault.KeyWrapper,
// keyvault.MACer and keyvault.RegisterStore. It is safe for concurrent use.
type Store struct {
	mu   sync.RWMutex
	keys map[keyvault.KeyRef]*key
	// registers are the keyvault.RegisterStore values.
	registers map[string][]byte
	closed    bool
}

// key is one stored key; exactly one of the private fields is set.
type key struct {
	alg     keyvault.Algorithm
	public  crypto.PublicKey
	aes     []byte
	hmac    []byte
	p256    *ecdsa.PrivateKey
	k1      *secp256k1.PrivateKey
	ed25519 ed25519.PrivateKey
}

// New returns an empty Store. Outside a test binary (testing.Testing() is
// false) it refuses with ErrNotInTest: keys in plain memory must never back
// a real deployment.
func New() (*Store, error) {
	if !testing.Testing() {
		return nil, ErrNotInTest
	}
	return &Store{keys: map[keyvault.KeyRef]*key{}}, nil
}

func checkRef(ref keyvault.KeyRef) error {
	if ref.ID == "" || ref.Version == 0 {
		return fmt.Errorf("%w: %q v%d", ErrInvalidKeyRef, ref.ID, ref.Version)
	}
	return nil
}

// CreateKey generates a key in memory.
func (s *Store) CreateKey(ctx context.Context, req keyvault.CreateKeyRequest) (keyvault.KeyInfo, error) {
	if err := checkRef(req.Ref); err != nil {
		return keyvault.KeyInfo{}, err
	}
	if err := ctx.Err(); err != nil {
		return keyvault.KeyInfo{}, err
	}
	k, err := generate(req.Algorithm)
	if err != nil {
		return keyvault.KeyInfo{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return keyvault.KeyInfo{}, keyvault.ErrClosed
	}
	if _, ok := s.keys[req.Ref]; ok {
		return keyvault.KeyInfo{}, fmt.Errorf("%w: %s v%d", keyvault.ErrAlreadyExists, req.Ref.ID, req.Ref.Version)
	}
	s.keys[req.Ref] = k
	return k.info(req.Ref), nil
}

func generate(alg keyvault.Algorithm) (*key, error) {
	k := &key{alg: alg}
	var err error
	switch alg {
	case keyvault.AES256:
		k.aes = make([]byte, 32)
		_, _ = rand.Read(k.aes)
	case keyvault.HMACSHA256:
		k.hmac = make([]byte, hmacKeyLen)
		_, _ = rand.Read(k.hmac)
	case keyvault.P256:
		if k.p256, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err == nil {
			k.public = &k.p256.PublicKey
		}
	case keyvault.Secp256k1:
		if k.k1, err = secp256k1.GeneratePrivateKey(); err == nil {
			k.public = keyvault.Secp256k1Point(k.k1.PubKey().SerializeUncompressed())
		}
	case keyvault.Ed25519:
		var pub ed25519.PublicKey
		if pub, k.ed25519, err = ed25519.GenerateKey(rand.Reader); err == nil {
			k.public = pub
		}
	default:
		return nil, fmt.Errorf("%w: algorithm %q", keyvault.ErrUnsupported, alg)
	}
	if err != nil {
		return nil, fmt.Errorf("generating %s key: %w", alg, err)
	}
	return k, nil
}

func (k *key) info(ref keyvault.KeyRef) keyvault.KeyInfo {
	return keyvault.KeyInfo{Ref: ref, Algorithm: k.alg, Public: k.public}
}

// get returns the key of ref.
func (s *Store) get(ctx context.Context, ref keyvault.KeyRef) (*key, error) {
	if err := checkRef(ref); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, keyvault.ErrClosed
	}
	k, ok := s.keys[ref]
	if !ok {
		return nil, fmt.Errorf("%w: %s v%d", keyvault.ErrKeyNotFound, ref.ID, ref.Version)
	}
	return k, nil
}

// Key describes an existing key.
func (s *Store) Key(ctx context.Context, ref keyvault.KeyRef) (keyvault.KeyInfo, error) {
	k, err := s.get(ctx, ref)
	if err != nil {
		return keyvault.KeyInfo{}, err
	}
	return k.info(ref), nil
}

// Versions lists the versions stored under id, ascending.
func (s *Store) Versions(ctx context.Context, id string) ([]uint32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if id == "" {
		return nil, fmt.Errorf("%w: empty id", ErrInvalidKeyRef)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, keyvault.ErrClosed
	}
	out := []uint32{}
	for ref := range s.keys {
		if ref.ID == id {
			out = append(out, ref.Version)
		}
	}
	slices.Sort(out)
	return out, nil
}

// DestroyKey forgets a key. Signers of it answer keyvault.ErrKeyNotFound.
func (s *Store) DestroyKey(ctx context.Context, ref keyvault.KeyRef) error {
	if err := checkRef(ref); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return keyvault.ErrClosed
	}
	if _, ok := s.keys[ref]; !ok {
		return fmt.Errorf("%w: %s v%d", keyvault.ErrKeyNotFound, ref.ID, ref.Version)
	}
	delete(s.keys, ref)
	return nil
}

// Close forgets every key. It is idempotent; other methods answer
// keyvault.ErrClosed afterwards.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys = nil
	s.closed = true
	return nil
}

// WrapKey wraps dek (16, 24 or 32 bytes) under the AES-256 key kek (RFC 3394).
func (s *Store) WrapKey(ctx context.Context, kek keyvault.KeyRef, dek []byte) ([]byte, error) {
	switch len(dek) {
	case 16, 24, 32:
	default:
		return nil, fmt.Errorf("wrapping data key: %w: %d bytes", ErrInvalidLength, len(dek))
	}
	k, err := s.kek(ctx, kek)
	if err != nil {
		return nil, fmt.Errorf("wrapping data key: %w", err)
	}
	out, err := wrapKey(k.aes, dek)
	if err != nil {
		return nil, fmt.Errorf("wrapping data key: %w", err)
	}
	return out, nil
}

// UnwrapKey reverses WrapKey; a wrapped key that fails the integrity check
// gives an error wrapping keyvault.ErrUnwrap.
func (s *Store) UnwrapKey(ctx context.Context, kek keyvault.KeyRef, wrapped []byte) ([]byte, error) {
	switch len(wrapped) {
	case 24, 32, 40:
	default:
		return nil, fmt.Errorf("unwrapping data key: %w: %d bytes", keyvault.ErrUnwrap, len(wrapped))
	}
	k, err := s.kek(ctx, kek)
	if err != nil {
		return nil, fmt.Errorf("unwrapping data key: %w", err)
	}
	dek, err := unwrapKey(k.aes, wrapped)
	if err != nil {
		if errors.Is(err, errUnwrapIntegrity) {
			return nil, fmt.Errorf("unwrapping data key: %w", keyvault.ErrUnwrap)
		}
		return nil, fmt.Errorf("unwrapping data key: %w", err)
	}
	return dek, nil
}

func (s *Store) kek(ctx context.Context, ref keyvault.KeyRef) (*key, error) {
	k, err := s.get(ctx, ref)
	if err != nil {
		return nil, err
	}
	if k.alg != keyvault.AES256 {
		return nil, fmt.Errorf("%w: %s v%d is a %s key", keyvault.ErrUnsupported, ref.ID, ref.Version, k.alg)
	}
	return k, nil
}

// Interface guards.
var (
	_ keyvault.KeyStore   = (*Store)(nil)
	_ keyvault.KeyWrapper = (*Store)(nil)
	_ keyvault.MACer      = (*Store)(nil)
)

// CheckKey reports whether ref exists (keyvault.KeyChecker).
func (s *Store) CheckKey(ctx context.Context, ref keyvault.KeyRef) error {
	_, err := s.get(ctx, ref)
	return err
}
