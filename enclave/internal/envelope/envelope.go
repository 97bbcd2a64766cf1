package envelope

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/opencustody/ocv/keyvault"
)

// Config tunes a Sealer. CacheSize is the number of unwrapped DEKs kept
// (0 disables the cache; negative is refused). Now is the clock (time.Now
// when nil).
type Config struct {
	CacheSize int
	Now       func() time.Time
}

// Sealer seals and opens values. It is safe for concurrent use.
type Sealer struct {
	ks     keyvault.KeyStore
	w      keyvault.KeyWrapper
	chk    keyvault.KeyChecker
	cache  *dekCache
	iks    *ikCache
	checks checkGroup
	latest *latestVersions
}

// Sealed is what Seal gives back for storage.
type Sealed struct {
	KEKVersion uint32
	WrappedDEK []byte
	Ciphertext []byte
}

// New returns a Sealer over ks, which must implement keyvault.KeyWrapper
// (an error wrapping keyvault.ErrUnsupported otherwise). The DEK cache (of
// legacy blobs) and the intermediate-key cache are used only when ks also
// implements keyvault.KeyChecker: a cached key is handed out only after the
// key store confirmed that its KEK version still exists, so without that
// check there is no cache (and every seal and open derives the
// intermediate key again). CacheSize 0 disables both caches.
func New(ks keyvault.KeyStore, cfg Config) (*Sealer, error) {
	w, ok := ks.(keyvault.KeyWrapper)
	if !ok {
		return nil, fmt.Errorf("creating sealer: key store cannot wrap keys: %w", keyvault.ErrUnsupported)
	}
	if cfg.CacheSize < 0 {
		return nil, fmt.Errorf("creating sealer: negative cache size: %w", ErrInvalidConfig)
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	chk, _ := ks.(keyvault.KeyChecker)
	size := cfg.CacheSize
	if chk == nil {
		size = 0
	}
	return &Sealer{ks: ks, w: w, chk: chk, cache: newDEKCache(size, CacheTTL, now), iks: newIKCache(size, IKTTL, now),
		latest: newLatestVersions(now)}, nil
}

// Close zeroises the DEK and intermediate-key caches. The key store is the
// caller's to close.
func (s *Sealer) Close() {
	s.cache.purge()
	s.iks.purge()
}

// CreateKEK creates the next KEK version of an organization's vault (1 for
// a new vault) as an AES-256 key in the key store and returns it. Deciding
// who may is the caller's job.
func (s *Sealer) CreateKEK(ctx context.Context, orgID, vaultID string) (uint32, error) {
	if err := validKEKOwner(orgID, vaultID); err != nil {
		return 0, err
	}
	id := kekID(orgID, vaultID)
	// Another enclave on the same HSM may create the same version at the
	// same time; the loser sees ErrAlreadyExists and takes the next one.
	for range 3 {
		versions, err := s.ks.Versions(ctx, id)
		if err != nil {
			return 0, fmt.Errorf("listing kek versions: %w", err)
		}
		next := uint32(1)
		if n := len(versions); n > 0 {
			next = versions[n-1] + 1
		}
		_, err = s.ks.CreateKey(ctx, keyvault.CreateKeyRequest{Ref: keyvault.KeyRef{ID: id, Version: next}, Algorithm: keyvault.AES256})
		if errors.Is(err, keyvault.ErrAlreadyExists) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("creating kek: %w", err)
		}
		s.latest.set(id, next)
		return next, nil
	}
	return 0, fmt.Errorf("creating kek: %w", keyvault.ErrAlreadyExists)
}

// latestKEK returns the newest KEK version of a vault, or an error wrapping
// keyvault.ErrKeyNotFound when the vault has none.
func (s *Sealer) latestKEK(ctx context.Context, orgID, vaultID string) (uint32, error) {
	id := kekID(orgID, vaultID)
	if v, ok := s.latest.get(id); ok {
		return v, nil
	}
	versions, err := s.ks.Versions(ctx, id)
	if err != nil {
		return 0, fmt.Errorf("listing kek versions: %w", err)
	}
	if len(versions) == 0 {
		return 0, fmt.Errorf("finding latest kek: %w", keyvault.ErrKeyNotFound)
	}
	v := versions[len(versions)-1]
	s.latest.set(id, v)
	return v, nil
}

// Seal encrypts plaintext for loc under a fresh DEK wrapped by the vault's
// KEK version kekVersion (0: the latest), as an untyped version-2 blob.
func (s *Sealer) Seal(ctx context.Context, loc Locator, kekVersion uint32, plaintext []byte) (Sealed, error) {
	return s.SealTyped(ctx, loc, kekVersion, "", plaintext)
}

// SealTyped is Seal binding secretType (ValidSecretType) into the blob:
// Open of the blob fails unless the type it carries is the one sealed.
//
// It writes a version-3 blob: the fresh DEK is wrapped in the enclave under
// the vault's intermediate key (ikey.go), so a seal costs at most one call
// to the key store (the KEK liveness check) while the intermediate key is
// cached, and one key wrap when it is not. A KEK version that is gone gives
// ErrKEKDestroyed, as Open does.
func (s *Sealer) SealTyped(ctx context.Context, loc Locator, kekVersion uint32, secretType string, plaintext []byte) (Sealed, error) {
	if err := loc.Validate(); err != nil {
		return Sealed{}, err
	}
	if !ValidSecretType(secretType) {
		return Sealed{}, fmt.Errorf("%w: secret type", ErrInvalidLocator)
	}
	latest := kekVersion == 0
	var ik [ikSize]byte
	defer clear(ik[:])
	var ref keyvault.KeyRef
	for attempt := 0; ; attempt++ {
		if latest {
			v, err := s.latestKEK(ctx, loc.OrgID, loc.VaultID)
			if err != nil {
				return Sealed{}, err
			}
			kekVersion = v
		}
		ref = keyvault.KeyRef{ID: kekID(loc.OrgID, loc.VaultID), Version: kekVersion}
		err := s.intermediateKey(ctx, ref, ikGeneration, &ik)
		if err == nil {
			break
		}
		if !errors.Is(err, keyvault.ErrKeyNotFound) {
			return Sealed{}, fmt.Errorf("sealing: %w", err)
		}
		if latest && attempt == 0 {
			// The remembered latest version is gone (destroyed after a
			// rotation): look it up again once.
			s.latest.forget(ref.ID)
			continue
		}
		if gone := s.kekGone(ctx, ref); errors.Is(gone, ErrKEKDestroyed) {
			return Sealed{}, gone
		}
		return Sealed{}, fmt.Errorf("sealing: %w", err)
	}
	var dek [dekSize]byte
	defer clear(dek[:])
	if _, err := rand.Read(dek[:]); err != nil {
		return Sealed{}, fmt.Errorf("generating data key: %w", err)
	}
	ikAEAD, err := newAEAD(ik[:])
	if err != nil {
		return Sealed{}, err
	}
	n := len(loc.OrgID) + len(loc.VaultID) + len(loc.Path) + len(secretType)
	wrapped := ikAEAD.Seal(make([]byte, 0, wrappedDEKV3Len), nil, dek[:], appendDEKAAD(make([]byte, 0, 64+n), loc, secretType, kekVersion, ikGeneration))
	aead, err := newAEAD(dek[:])
	if err != nil {
		return Sealed{}, err
	}
	out := make([]byte, 0, blobHeaderLen+4+1+len(secretType)+gcmNonceSize+len(plaintext)+gcmTagSize)
	out = appendBlobHeaderV3(out, kekVersion, ikGeneration, secretType)
	out = aead.Seal(out, nil, plaintext, appendAADV3(make([]byte, 0, 64+n), loc, secretType))
	return Sealed{KEKVersion: kekVersion, WrappedDEK: wrapped, Ciphertext: out}, nil
}

// Open decrypts a blob sealed for loc and appends the plaintext to dst.
// Every failure to unwrap or authenticate gives ErrIntegrity and nothing
// else (an unknown blob version gives ErrUnsupportedFormat), except a KEK
// version that is gone from the key store, which gives ErrKEKDestroyed
// (see kekGone); failures of the key store itself (closed, unreachable)
// are returned wrapped as they are.
//
// A DEK found in the cache is used only after the key store confirmed that
// its KEK version still exists (keyvault.KeyChecker, one cheap call to the
// HSM), so a KEK destroyed by any process on the token stops opening
// values at the next Open, and its cached DEKs are dropped then.
func (s *Sealer) Open(ctx context.Context, loc Locator, wrapped, blob, dst []byte) ([]byte, error) {
	if err := loc.Validate(); err != nil {
		return dst, err
	}
	p, err := parseBlob(blob)
	if err != nil {
		return dst, err
	}
	ref := keyvault.KeyRef{ID: kekID(loc.OrgID, loc.VaultID), Version: p.kekVersion}
	if p.version == blobV3 {
		return s.openV3(ctx, loc, ref, p, wrapped, dst)
	}
	ck := makeCacheKey(ref.ID, ref.Version, wrapped)
	var dek [dekSize]byte
	defer clear(dek[:])
	hit := s.cache.get(ck, &dek)
	if hit {
		if err := s.checkKEK(ctx, ref); err != nil {
			clear(dek[:])
			if errors.Is(err, keyvault.ErrKeyNotFound) {
				s.dropKEK(ref)
				return dst, s.kekGone(ctx, ref)
			}
			return dst, fmt.Errorf("checking kek: %w", err)
		}
	} else {
		raw, err := s.w.UnwrapKey(ctx, ref, wrapped)
		switch {
		case errors.Is(err, keyvault.ErrKeyNotFound):
			s.dropKEK(ref)
			return dst, s.kekGone(ctx, ref)
		case errors.Is(err, keyvault.ErrUnwrap):
			// A damaged or swapped wrapped key: opaque.
			return dst, ErrIntegrity
		case err != nil:
			return dst, fmt.Errorf("unwrapping data key: %w", err)
		}
		if len(raw) != dekSize {
			clear(raw)
			return dst, ErrIntegrity
		}
		copy(dek[:], raw)
		clear(raw)
		s.cache.put(ck, ref, dek[:])
	}
	aead, err := newAEAD(dek[:])
	if err != nil {
		return dst, err
	}
	var aad []byte
	if p.version == blobV2 {
		aad = appendAADV2(make([]byte, 0, 64+len(loc.OrgID)+len(loc.VaultID)+len(loc.Path)+len(p.secretType)), loc, p.secretType)
	} else {
		aad = appendAAD(make([]byte, 0, 64+len(loc.OrgID)+len(loc.VaultID)+len(loc.Path)), loc)
	}
	out, err := aead.Open(dst, nil, p.sealed, aad)
	if err != nil {
		return dst, ErrIntegrity
	}
	return out, nil
}

// openV3 opens a version-3 blob: the data key is unwrapped in the enclave
// under the vault's intermediate key, after the KEK liveness check.
func (s *Sealer) openV3(ctx context.Context, loc Locator, ref keyvault.KeyRef, p parsedBlob, wrapped, dst []byte) ([]byte, error) {
	if p.ikGen != ikGeneration || len(wrapped) != wrappedDEKV3Len {
		// Only generation 1 exists: a forged one costs no HSM call.
		return dst, ErrIntegrity
	}
	var ik [ikSize]byte
	defer clear(ik[:])
	err := s.intermediateKey(ctx, ref, p.ikGen, &ik)
	switch {
	case errors.Is(err, keyvault.ErrKeyNotFound):
		return dst, s.kekGone(ctx, ref)
	case err != nil:
		return dst, fmt.Errorf("opening: %w", err)
	}
	ikAEAD, err := newAEAD(ik[:])
	if err != nil {
		return dst, err
	}
	n := len(loc.OrgID) + len(loc.VaultID) + len(loc.Path) + len(p.secretType)
	var dek [dekSize]byte
	defer clear(dek[:])
	if _, err := ikAEAD.Open(dek[:0], nil, wrapped, appendDEKAAD(make([]byte, 0, 64+n), loc, p.secretType, ref.Version, p.ikGen)); err != nil {
		return dst, ErrIntegrity
	}
	aead, err := newAEAD(dek[:])
	if err != nil {
		return dst, err
	}
	out, err := aead.Open(dst, nil, p.sealed, appendAADV3(make([]byte, 0, 64+n), loc, p.secretType))
	if err != nil {
		return dst, ErrIntegrity
	}
	return out, nil
}

// checkKEK asks the key store whether ref still exists, sharing the call
// with concurrent callers (checkGroup: never a check begun before the
// caller arrived).
func (s *Sealer) checkKEK(ctx context.Context, ref keyvault.KeyRef) error {
	return s.checks.check(ctx, ref, func() error { return s.chk.CheckKey(ctx, ref) })
}

// kekGone classifies a KEK version the key store does not have. Versions
// of a vault are made in order from 1 and only ever destroyed, so a version
// below the newest one the store still holds, or any version of a vault
// whose every KEK is gone, existed and was destroyed (or lost with the
// token): ErrKEKDestroyed. A version above every stored one never existed:
// the blob names a forged version, ErrIntegrity as for any other tampering.
// The latest-version cache of Seal forgets the vault either way.
func (s *Sealer) kekGone(ctx context.Context, ref keyvault.KeyRef) error {
	s.latest.forget(ref.ID)
	versions, err := s.ks.Versions(ctx, ref.ID)
	if err != nil {
		return fmt.Errorf("listing kek versions: %w", err)
	}
	if n := len(versions); n > 0 && ref.Version > versions[n-1] {
		return ErrIntegrity
	}
	return fmt.Errorf("%w: %s version %d", ErrKEKDestroyed, ref.ID, ref.Version)
}

func newAEAD(dek []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(dek)
	if err != nil {
		return nil, fmt.Errorf("creating cipher: %w", err)
	}
	aead, err := cipher.NewGCMWithRandomNonce(block)
	if err != nil {
		return nil, fmt.Errorf("creating gcm: %w", err)
	}
	return aead, nil
}
