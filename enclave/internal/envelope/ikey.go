package envelope

import (
	"context"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/opencustody/ocv/keyvault"
)

// IKTTL is how long an intermediate key stays in memory after it was
// derived (not after its last use). Like CacheTTL it bounds a key's life in
// memory; crypto-shredding does not depend on it: every Seal and Open that
// uses a cached intermediate key first asks the key store whether its KEK
// version still exists.
const IKTTL = 10 * time.Minute

// maxIKEntries bounds the intermediate-key cache (one entry per vault and
// KEK version in use).
const maxIKEntries = 4096

// ikGeneration is the intermediate-key id every version-3 blob is sealed
// under today. It is bound into the derivation and into the data key's AAD,
// so a later generation (a fresh intermediate key under the same KEK
// version) can coexist with this one.
const ikGeneration uint32 = 1

const (
	ikSize       = 32
	ikSeedDomain = "ocv-ik-seed-v3"
	ikInfoDomain = "ocv-ik-v3"
)

// The intermediate key (IK) of a vault's KEK version is never stored: it
// is derived inside the enclave from one key wrap inside the key store,
//
//	seed = SHA-256("ocv-ik-seed-v3" ‖ len‖kek id ‖ kek version ‖ generation)
//	w    = AES-KW(KEK, seed)           (RFC 3394, deterministic, in the HSM)
//	IK   = HKDF-SHA256(secret w, info "ocv-ik-v3" ‖ len‖kek id ‖ kek version ‖ generation)
//
// RFC 3394 wrap is a deterministic keyed permutation, so w is pseudorandom
// to anyone without the KEK and every enclave on the same token derives the
// same IK; without the KEK (destroyed, another token) nobody can. The seed
// is public; the wrap of it is the secret, so no code path may wrap a
// caller-chosen value under a KEK and hand the result out (Seal of legacy
// formats wrapped only fresh random data keys; version 3 wraps nothing).

// ikSeed is the public derivation input of an intermediate key.
func ikSeed(ref keyvault.KeyRef, gen uint32) [sha256.Size]byte {
	b := make([]byte, 0, 64+len(ref.ID))
	b = append(b, ikSeedDomain...)
	b = appendField(b, ref.ID)
	b = binary.BigEndian.AppendUint32(b, ref.Version)
	b = binary.BigEndian.AppendUint32(b, gen)
	return sha256.Sum256(b)
}

// ikInfo is the HKDF info of an intermediate key.
func ikInfo(ref keyvault.KeyRef, gen uint32) string {
	b := make([]byte, 0, 64+len(ref.ID))
	b = append(b, ikInfoDomain...)
	b = appendField(b, ref.ID)
	b = binary.BigEndian.AppendUint32(b, ref.Version)
	b = binary.BigEndian.AppendUint32(b, gen)
	return string(b)
}

// deriveIK derives the intermediate key of ref and gen into dst: one key
// wrap in the key store (three PKCS#11 calls on SoftHSM).
func (s *Sealer) deriveIK(ctx context.Context, ref keyvault.KeyRef, gen uint32, dst *[ikSize]byte) error {
	seed := ikSeed(ref, gen)
	w, err := s.w.WrapKey(ctx, ref, seed[:])
	if err != nil {
		return fmt.Errorf("deriving intermediate key: %w", err)
	}
	defer clear(w)
	k, err := hkdf.Key(sha256.New, w, nil, ikInfo(ref, gen), ikSize)
	if err != nil {
		return fmt.Errorf("deriving intermediate key: %w", err)
	}
	copy(dst[:], k)
	clear(k)
	return nil
}

// intermediateKey puts the intermediate key of ref and gen into dst. A
// cached key is handed out only after the key store confirmed that the KEK
// version still exists (one cheap call); a KEK that is gone drops its
// intermediate key and its cached data keys and gives an error wrapping
// keyvault.ErrKeyNotFound. A key not cached is derived, which uses the KEK
// itself, so needs no separate check.
func (s *Sealer) intermediateKey(ctx context.Context, ref keyvault.KeyRef, gen uint32, dst *[ikSize]byte) error {
	if s.iks.get(ref, gen, dst) {
		err := s.checkKEK(ctx, ref)
		if err == nil {
			return nil
		}
		clear(dst[:])
		if errors.Is(err, keyvault.ErrKeyNotFound) {
			s.dropKEK(ref)
		}
		return fmt.Errorf("checking kek: %w", err)
	}
	if err := s.deriveIK(ctx, ref, gen, dst); err != nil {
		if errors.Is(err, keyvault.ErrKeyNotFound) {
			s.dropKEK(ref)
		}
		return err
	}
	s.iks.put(ref, gen, dst)
	return nil
}

// dropKEK zeroises every key cached under a KEK version that is gone.
func (s *Sealer) dropKEK(ref keyvault.KeyRef) {
	s.iks.drop(ref)
	s.cache.dropKEK(ref)
}

type ikKey struct {
	kek keyvault.KeyRef
	gen uint32
}

type ikEntry struct {
	key     [ikSize]byte
	expires time.Time
}

// ikCache holds derived intermediate keys for IKTTL each, at most size of
// them. Dropped and expired keys are zeroised. A nil cache holds nothing.
// It is safe for concurrent use.
type ikCache struct {
	mu   sync.Mutex
	size int
	ttl  time.Duration
	now  func() time.Time
	m    map[ikKey]*ikEntry
}

func newIKCache(size int, ttl time.Duration, now func() time.Time) *ikCache {
	if size <= 0 {
		return nil
	}
	return &ikCache{size: min(size, maxIKEntries), ttl: ttl, now: now, m: make(map[ikKey]*ikEntry)}
}

func (c *ikCache) get(ref keyvault.KeyRef, gen uint32, dst *[ikSize]byte) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[ikKey{ref, gen}]
	if !ok {
		return false
	}
	if !c.now().Before(e.expires) {
		clear(e.key[:])
		delete(c.m, ikKey{ref, gen})
		return false
	}
	*dst = e.key
	return true
}

func (c *ikCache) put(ref keyvault.KeyRef, gen uint32, key *[ikSize]byte) {
	if c == nil {
		return
	}
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	k := ikKey{ref, gen}
	if old, ok := c.m[k]; ok {
		clear(old.key[:])
	}
	if len(c.m) >= c.size {
		for k, e := range c.m {
			if !now.Before(e.expires) {
				clear(e.key[:])
				delete(c.m, k)
			}
		}
		for k, e := range c.m { // still full: drop any one
			if len(c.m) < c.size {
				break
			}
			clear(e.key[:])
			delete(c.m, k)
		}
	}
	c.m[k] = &ikEntry{key: *key, expires: now.Add(c.ttl)}
}

// drop zeroises and forgets every generation of a KEK version's key.
func (c *ikCache) drop(ref keyvault.KeyRef) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.m {
		if k.kek == ref {
			clear(e.key[:])
			delete(c.m, k)
		}
	}
}

func (c *ikCache) purge() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.m {
		clear(e.key[:])
		delete(c.m, k)
	}
}

func (c *ikCache) len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
