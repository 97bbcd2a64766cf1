// Package passhash hashes and verifies passwords with argon2id in the PHC
// string format ("$argon2id$v=19$m=…,t=…,p=…$salt$key"). The proxy hashes
// new passwords with it and the enclave verifies them against the sealed
// user record with it: one parser, one set of bounds.
package passhash

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// ErrMismatch is a wrong password (or no password to match).
var ErrMismatch = errors.New("password does not match")

// Parameters of new hashes (OWASP's second recommended set: 19 MiB, t=2,
// p=1).
const (
	hashTime    = 2
	hashMemory  = 19 * 1024 // KiB
	hashThreads = 1
	keyLen      = 32
	saltLen     = 16
)

// Bounds of the parameters Verify runs: a hash beyond them is refused
// without deriving anything, so that a stored (or sealed) hash cannot make
// a sign-in take a gibibyte.
const (
	maxMemory = 64 << 10 // KiB
	maxTime   = 8
)

// Pool bounds concurrent derivations. Hash and Verify use the sign-in pool;
// other users of passwords (share passphrases) get their own from NewPool so
// that they cannot starve sign-in.
type Pool chan struct{}

// NewPool returns a pool of n concurrent derivations (at least one).
func NewPool(n int) Pool { return make(Pool, max(n, 1)) }

// slots bounds concurrent derivations: at most eight at once, so that a
// burst of sign-ins cannot exhaust memory.
var slots = NewPool(8)

func (slots Pool) acquire(ctx context.Context) error {
	select {
	case slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Hash returns an argon2id hash of password in PHC string format.
func Hash(ctx context.Context, password string) (string, error) { return slots.Hash(ctx, password) }

// Hash is Hash on this pool.
func (slots Pool) Hash(ctx context.Context, password string) (string, error) {
	if err := slots.acquire(ctx); err != nil {
		return "", err
	}
	defer func() { <-slots }()
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("reading salt: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, hashTime, hashMemory, hashThreads, keyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, hashMemory, hashTime, hashThreads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

// dummy is verified against when there is no hash (an unknown user, no
// password set), so that the answer costs one derivation all the same.
const dummy = "$argon2id$v=19$m=19456,t=2,p=1$b2N2LWR1bW15LXNhbHQ$0Ue1dC2NfDIe7Kx1t1k6bJ1o8p2f7dQq7T6kQmZlL7c"

// Verify checks password against a PHC argon2id hash in constant time. An
// empty hash costs one derivation and gives ErrMismatch; a malformed or
// out-of-bounds one gives another error and derives nothing.
func Verify(ctx context.Context, hash, password string) error {
	return slots.Verify(ctx, hash, password)
}

// Verify is Verify on this pool.
func (slots Pool) Verify(ctx context.Context, hash, password string) error {
	known := hash != ""
	if !known {
		hash = dummy
	}
	var version, mem, t, p int
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return errors.New("parsing password hash: unsupported format")
	}
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return errors.New("parsing password hash: unsupported version")
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &mem, &t, &p); err != nil {
		return fmt.Errorf("parsing password hash parameters: %w", err)
	}
	if mem < 8 || mem > maxMemory || t < 1 || t > maxTime || p < 1 || p > 16 {
		return errors.New("parsing password hash parameters: out of range")
	}
	salt, err := base64.RawStdEncoding.DecodeString(parts[4])
	if err != nil {
		return fmt.Errorf("parsing password hash salt: %w", err)
	}
	want, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil || len(want) < 16 || len(want) > 64 {
		return errors.New("parsing password hash key: invalid")
	}
	if err := slots.acquire(ctx); err != nil {
		return err
	}
	defer func() { <-slots }()
	got := argon2.IDKey([]byte(password), salt, uint32(t), uint32(mem), uint8(p), uint32(len(want)))
	if subtle.ConstantTimeCompare(got, want) != 1 || !known {
		return ErrMismatch
	}
	return nil
}
