// Package floors keeps the enclave's anti-rollback floors: for each sealed
// thing it vouches for (a vault's policy set, an agent's guardrail set, a
// principal's identity record, an organization's audit head) the newest
// version and the digest of the record at that version. Floors live in the
// HSM (keyvault.RegisterStore), so they survive a restart and every enclave
// on the same token sees the same ones; the database and the proxy never
// hold them.
//
// A presented record is accepted only when it is exactly the floor: a
// superseded version is refused, and so is a different record claiming the
// newest version. Each enclave caches what it read for Config.Refresh: a
// floor advanced by another enclave on the same HSM is seen here within
// that time (docs/threat-model.md, "Anti-rollback floors").
package floors

import (
	"context"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/opencustody/ocv/keyvault"
)

// Errors. Callers map ErrSuperseded to a refusal; an error from the key
// store (anything else) is an outage, never a verdict.
var (
	// ErrSuperseded is a presented record that is not the floor, or an
	// advance that is not above it.
	ErrSuperseded = errors.New("superseded by a newer version")
	// ErrNoFloor is a name no floor was ever written for.
	ErrNoFloor = errors.New("no floor")
)

// Floor is the newest sealed version of one named thing.
type Floor struct {
	Version uint64
	// Digest is the SHA-256 the caller computes over the sealed record at
	// Version (for an audit head: the chain hash).
	Digest [32]byte
	// NotBefore is a cut-off in Unix milliseconds for identity floors:
	// tokens of the principal issued earlier are refused. Zero: none.
	NotBefore int64
}

// encodedLen is the size of an encoded floor: a tag, the version, the
// digest and the cut-off.
const encodedLen = 4 + 8 + 32 + 8

var tag = [4]byte{'o', 'f', 'l', '1'}

func (f Floor) encode() []byte {
	b := make([]byte, 0, encodedLen)
	b = append(b, tag[:]...)
	b = binary.BigEndian.AppendUint64(b, f.Version)
	b = append(b, f.Digest[:]...)
	return binary.BigEndian.AppendUint64(b, uint64(f.NotBefore))
}

func decode(b []byte) (Floor, error) {
	if len(b) != encodedLen || [4]byte(b[:4]) != tag {
		return Floor{}, fmt.Errorf("floor register holds %d bytes that are not a floor", len(b))
	}
	var f Floor
	f.Version = binary.BigEndian.Uint64(b[4:12])
	copy(f.Digest[:], b[12:44])
	f.NotBefore = int64(binary.BigEndian.Uint64(b[44:52]))
	return f, nil
}

// Matches reports whether (version, digest) is exactly f, in constant time
// over the digest.
func (f Floor) Matches(version uint64, digest [32]byte) bool {
	return f.Version == version && subtle.ConstantTimeCompare(f.Digest[:], digest[:]) == 1
}

// Config tunes a Store.
type Config struct {
	// Refresh is how long a floor read from the HSM is trusted before it is
	// read again (default DefaultRefresh).
	Refresh time.Duration
	// MaxCached bounds the floors kept in memory (default 1<<20); beyond
	// it an arbitrary one is forgotten and read again when next needed.
	MaxCached int
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// DefaultRefresh is how long a cached floor is trusted by default.
const DefaultRefresh = time.Second

// Store reads and advances floors through a RegisterStore, caching what it
// read. Safe for concurrent use.
type Store struct {
	rs  keyvault.RegisterStore
	cfg Config

	mu    sync.Mutex
	cache map[string]cached
	// writeMu serialises advances in this process, so that two changes
	// racing here never both believe they won.
	writeMu sync.Mutex
}

type cached struct {
	f      Floor
	exists bool
	read   time.Time
}

// New returns a Store over rs.
func New(rs keyvault.RegisterStore, cfg Config) *Store {
	if cfg.Refresh <= 0 {
		cfg.Refresh = DefaultRefresh
	}
	if cfg.MaxCached <= 0 {
		cfg.MaxCached = 1 << 20
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Store{rs: rs, cfg: cfg, cache: map[string]cached{}}
}

// Get returns the floor of name, from the cache when it was read within
// Refresh. It returns ErrNoFloor when none was ever written.
func (s *Store) Get(ctx context.Context, name string) (Floor, error) {
	s.mu.Lock()
	c, ok := s.cache[name]
	s.mu.Unlock()
	if ok && s.cfg.Now().Sub(c.read) < s.cfg.Refresh {
		if !c.exists {
			return Floor{}, ErrNoFloor
		}
		return c.f, nil
	}
	return s.Load(ctx, name)
}

// Load reads the floor of name from the HSM, bypassing the cache.
func (s *Store) Load(ctx context.Context, name string) (Floor, error) {
	raw, err := s.rs.ReadRegister(ctx, name)
	if errors.Is(err, keyvault.ErrKeyNotFound) {
		s.remember(name, Floor{}, false)
		return Floor{}, ErrNoFloor
	}
	if err != nil {
		return Floor{}, fmt.Errorf("reading floor %s: %w", name, err)
	}
	f, err := decode(raw)
	if err != nil {
		return Floor{}, fmt.Errorf("reading floor %s: %w", name, err)
	}
	s.remember(name, f, true)
	return f, nil
}

func (s *Store) remember(name string, f Floor, exists bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.cache[name]; !ok && len(s.cache) >= s.cfg.MaxCached {
		for k := range s.cache { // map order: an arbitrary one
			delete(s.cache, k)
			break
		}
	}
	s.cache[name] = cached{f: f, exists: exists, read: s.cfg.Now()}
}

// Check accepts a presented record (version, digest) only when it is the
// floor of name. A cached floor that does not match is read again before
// the record is refused, so a record sealed by another enclave a moment ago
// passes. It returns ErrNoFloor when name has none (the caller decides what
// an unfloored record means) and ErrSuperseded when the record is not the
// floor.
func (s *Store) Check(ctx context.Context, name string, version uint64, digest [32]byte) (Floor, error) {
	f, err := s.Get(ctx, name)
	if err == nil && f.Matches(version, digest) {
		return f, nil
	}
	if err != nil && !errors.Is(err, ErrNoFloor) {
		return Floor{}, err
	}
	if f, err = s.Load(ctx, name); err != nil {
		return Floor{}, err
	}
	if !f.Matches(version, digest) {
		return f, ErrSuperseded
	}
	return f, nil
}

// Advance makes next the floor of name when next.Version is above the
// current one (read fresh from the HSM; none counts as version 0), then
// reads it back: another enclave that wrote in between wins, and this call
// returns ErrSuperseded. A call whose next is already the floor (a retry)
// succeeds.
func (s *Store) Advance(ctx context.Context, name string, next Floor) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	cur, err := s.Load(ctx, name)
	switch {
	case errors.Is(err, ErrNoFloor):
	case err != nil:
		return err
	case cur == next:
		return nil
	case next.Version <= cur.Version:
		return fmt.Errorf("floor %s: version %d is not above %d: %w", name, next.Version, cur.Version, ErrSuperseded)
	}
	if err := s.rs.WriteRegister(ctx, name, next.encode()); err != nil {
		return fmt.Errorf("writing floor %s: %w", name, err)
	}
	got, err := s.Load(ctx, name)
	if err != nil {
		return err
	}
	if got != next {
		return fmt.Errorf("floor %s: another enclave advanced it: %w", name, ErrSuperseded)
	}
	return nil
}

// Set replaces the floor of name without the version rule, for changes that
// keep the version (a new token cut-off on an unchanged record). The
// caller holds the authority for it.
func (s *Store) Set(ctx context.Context, name string, f Floor) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if err := s.rs.WriteRegister(ctx, name, f.encode()); err != nil {
		return fmt.Errorf("writing floor %s: %w", name, err)
	}
	s.remember(name, f, true)
	return nil
}
