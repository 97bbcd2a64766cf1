//go:build cgo

package pkcs11

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/miekg/pkcs11"

	"github.com/opencustody/ocv/keyvault"
	"github.com/opencustody/ocv/keyvault/pkcs11/internal/module"
)

// Store is a keyvault.KeyStore, keyvault.KeyWrapper and keyvault.MACer on
// one PKCS#11 token.
// It is safe for concurrent use.
type Store struct {
	ctx  *pkcs11.Ctx
	pool *pool

	mu sync.RWMutex
	// keys caches object handles per ref after the first lookup, so
	// signing and wrapping never search. A stale handle (key destroyed
	// elsewhere) is dropped and looked up once more.
	keys map[keyvault.KeyRef]*keyEntry
	// creating holds a channel per ref being created, closed when done, so
	// concurrent CreateKey calls of one ref cannot both generate.
	creating map[keyvault.KeyRef]chan struct{}
	// regMu serialises register writes in this process.
	regMu sync.Mutex
}

// New initialises the module (once per process, shared by every Store),
// selects the token labelled cfg.TokenLabel, opens the session pool and logs
// in. SoftHSM reads SOFTHSM2_CONF from the environment at the first New.
func New(ctx context.Context, cfg Config) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pin, err := cfg.pin()
	if err != nil {
		return nil, err
	}
	mod, err := module.Acquire(cfg.ModulePath)
	if err != nil {
		return nil, err
	}
	slot, err := findSlot(mod.Ctx, cfg.TokenLabel)
	if err != nil {
		return nil, errors.Join(err, mod.Release())
	}
	p, err := newPool(mod, slot, pin, cfg.poolSize())
	if err != nil {
		return nil, fmt.Errorf("opening sessions on token %q: %w", cfg.TokenLabel, err)
	}
	return &Store{
		ctx:      mod.Ctx,
		pool:     p,
		keys:     map[keyvault.KeyRef]*keyEntry{},
		creating: map[keyvault.KeyRef]chan struct{}{},
	}, nil
}

// findSlot returns the slot of the one initialised token labelled label.
func findSlot(ctx *pkcs11.Ctx, label string) (uint, error) {
	slots, err := ctx.GetSlotList(true)
	if err != nil {
		return 0, fmt.Errorf("listing slots: %w", err)
	}
	var found []uint
	for _, s := range slots {
		ti, err := ctx.GetTokenInfo(s)
		if err != nil {
			return 0, fmt.Errorf("reading token info of slot %d: %w", s, err)
		}
		if ti.Label == label && ti.Flags&pkcs11.CKF_TOKEN_INITIALIZED != 0 {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return 0, fmt.Errorf("%w: no token labelled %q", ErrTokenNotFound, label)
	default:
		return 0, fmt.Errorf("%w: %d tokens labelled %q", ErrTokenNotFound, len(found), label)
	}
}

// Close waits for operations in flight, closes every session and releases
// the module (the last Store of the process finalises it). Close is
// idempotent; other methods answer keyvault.ErrClosed afterwards.
func (s *Store) Close() error {
	return s.pool.close()
}

func (s *Store) checkOpen() error {
	if s.pool.closed() {
		return keyvault.ErrClosed
	}
	return nil
}

// CreateKey generates a key on the token.
func (s *Store) CreateKey(ctx context.Context, req keyvault.CreateKeyRequest) (keyvault.KeyInfo, error) {
	if err := checkRef(req.Ref); err != nil {
		return keyvault.KeyInfo{}, err
	}
	switch req.Algorithm {
	case keyvault.AES256, keyvault.HMACSHA256, keyvault.P256, keyvault.Secp256k1, keyvault.Ed25519:
	default:
		return keyvault.KeyInfo{}, fmt.Errorf("%w: algorithm %q", keyvault.ErrUnsupported, req.Algorithm)
	}
	return s.makeKey(ctx, req.Ref, func(ss *session) (*keyEntry, error) { return generate(s.ctx, ss.h, req) })
}

// makeKey runs build on one session to put a new key under ref on the
// token, once no other creation of ref runs in this Store and ref is
// free, and caches the entry it returns.
func (s *Store) makeKey(ctx context.Context, ref keyvault.KeyRef, build func(ss *session) (*keyEntry, error)) (keyvault.KeyInfo, error) {
	if err := s.checkOpen(); err != nil {
		return keyvault.KeyInfo{}, err
	}
	unlock, err := s.lockCreate(ctx, ref)
	if err != nil {
		return keyvault.KeyInfo{}, err
	}
	defer unlock()

	switch _, err := s.entry(ctx, ref); {
	case err == nil:
		return keyvault.KeyInfo{}, fmt.Errorf("%w: %s", keyvault.ErrAlreadyExists, objectLabel(ref))
	case !errors.Is(err, keyvault.ErrKeyNotFound):
		return keyvault.KeyInfo{}, err
	}
	var e *keyEntry
	err = s.pool.once(ctx, func(ss *session) error {
		var merr error
		e, merr = build(ss)
		return merr
	})
	if err != nil {
		return keyvault.KeyInfo{}, err
	}
	s.mu.Lock()
	s.keys[ref] = e
	s.mu.Unlock()
	return e.info(ref), nil
}

// lockCreate waits until no other CreateKey of ref is running in this Store
// and marks ref as being created. (Two processes on one token are not
// serialised: CreateKey's existence check and C_GenerateKey are two calls.)
func (s *Store) lockCreate(ctx context.Context, ref keyvault.KeyRef) (unlock func(), err error) {
	for {
		s.mu.Lock()
		busy, ok := s.creating[ref]
		if !ok {
			done := make(chan struct{})
			s.creating[ref] = done
			s.mu.Unlock()
			return func() {
				s.mu.Lock()
				delete(s.creating, ref)
				s.mu.Unlock()
				close(done)
			}, nil
		}
		s.mu.Unlock()
		select {
		case <-busy:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// entry returns the cached entry of ref, looking it up on the token on a miss.
func (s *Store) entry(ctx context.Context, ref keyvault.KeyRef) (*keyEntry, error) {
	s.mu.RLock()
	e, ok := s.keys[ref]
	s.mu.RUnlock()
	if ok {
		return e, nil
	}
	err := s.pool.do(ctx, func(ss *session) error {
		var lerr error
		e, lerr = loadEntry(s.ctx, ss.h, ref)
		return lerr
	})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.keys[ref] = e
	s.mu.Unlock()
	return e, nil
}

// forget drops ref from the cache if it still holds e.
func (s *Store) forget(ref keyvault.KeyRef, e *keyEntry) {
	s.mu.Lock()
	if s.keys[ref] == e {
		delete(s.keys, ref)
	}
	s.mu.Unlock()
}

// withKey runs fn with the entry of ref on a pooled session. If the cached
// handle turned stale it forgets it and tries once more with a fresh lookup.
func (s *Store) withKey(ctx context.Context, ref keyvault.KeyRef, fn func(ss *session, e *keyEntry) error) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	for range 2 {
		e, err := s.entry(ctx, ref)
		if err != nil {
			return err
		}
		err = s.pool.do(ctx, func(ss *session) error { return fn(ss, e) })
		if !isHandleInvalid(err) {
			return err
		}
		s.forget(ref, e)
	}
	return fmt.Errorf("%w: %s", keyvault.ErrKeyNotFound, objectLabel(ref))
}

// Key describes an existing key.
func (s *Store) Key(ctx context.Context, ref keyvault.KeyRef) (keyvault.KeyInfo, error) {
	if err := checkRef(ref); err != nil {
		return keyvault.KeyInfo{}, err
	}
	if err := s.checkOpen(); err != nil {
		return keyvault.KeyInfo{}, err
	}
	e, err := s.entry(ctx, ref)
	if err != nil {
		return keyvault.KeyInfo{}, err
	}
	return e.info(ref), nil
}

// DestroyKey destroys every object of ref on the token and forgets its
// handles. Signers of ref answer keyvault.ErrKeyNotFound afterwards.
func (s *Store) DestroyKey(ctx context.Context, ref keyvault.KeyRef) error {
	if err := checkRef(ref); err != nil {
		return err
	}
	if err := s.checkOpen(); err != nil {
		return err
	}
	s.forgetRef(ref)
	// Forget again afterwards: a concurrent lookup may have cached the
	// handles in between (it would self-heal, but need not).
	defer s.forgetRef(ref)
	return s.pool.do(ctx, func(ss *session) error {
		hs, err := findHandles(s.ctx, ss.h, ref)
		if err != nil {
			return err
		}
		if len(hs) == 0 {
			return fmt.Errorf("%w: %s", keyvault.ErrKeyNotFound, objectLabel(ref))
		}
		for _, h := range hs {
			if err := s.ctx.DestroyObject(ss.h, h); err != nil && !isHandleInvalid(err) {
				return fmt.Errorf("destroying %s: %w", objectLabel(ref), err)
			}
		}
		return nil
	})
}

func (s *Store) forgetRef(ref keyvault.KeyRef) {
	s.mu.Lock()
	delete(s.keys, ref)
	s.mu.Unlock()
}

// Interface guards.
var (
	_ keyvault.KeyStore   = (*Store)(nil)
	_ keyvault.KeyWrapper = (*Store)(nil)
	_ keyvault.MACer      = (*Store)(nil)
)
