package auth

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

// ErrPasswordMismatch is returned by VerifyPassword for a wrong password.
var ErrPasswordMismatch = errors.New("password does not match")

// Argon2id parameters (OWASP's second recommended set: 19 MiB, t=2, p=1).
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
	argonSaltLen = 16
)

// hashSlots bounds concurrent argon2id computations so that a burst of
// sign-ins cannot exhaust memory (each takes 19 MiB).
var hashSlots = make(chan struct{}, 8)

func acquire(ctx context.Context) error {
	select {
	case hashSlots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// HashPassword returns an argon2id hash in PHC string format.
func HashPassword(ctx context.Context, password string) (string, error) {
	if err := acquire(ctx); err != nil {
		return "", err
	}
	defer func() { <-hashSlots }()
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("reading salt: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

// dummyHash is verified against when a user does not exist, so that a
// sign-in for an unknown email costs the same as one with a wrong password.
const dummyHash = "$argon2id$v=19$m=19456,t=2,p=1$b2N2LWR1bW15LXNhbHQ$0Ue1dC2NfDIe7Kx1t1k6bJ1o8p2f7dQq7T6kQmZlL7c"

// VerifyPassword checks password against a PHC argon2id hash; an empty hash
// (no such user, or no password set) still costs one derivation and fails.
func VerifyPassword(ctx context.Context, hash, password string) error {
	known := hash != ""
	if !known {
		hash = dummyHash
	}
	var version, mem, t, p int
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return fmt.Errorf("parsing password hash: unsupported format")
	}
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil {
		return fmt.Errorf("parsing password hash version: %w", err)
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &mem, &t, &p); err != nil {
		return fmt.Errorf("parsing password hash parameters: %w", err)
	}
	if mem < 1 || mem > 1<<20 || t < 1 || t > 16 || p < 1 || p > 16 {
		return fmt.Errorf("parsing password hash parameters: out of range")
	}
	salt, err := base64.RawStdEncoding.DecodeString(parts[4])
	if err != nil {
		return fmt.Errorf("parsing password hash salt: %w", err)
	}
	want, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil || len(want) == 0 || len(want) > 64 {
		return fmt.Errorf("parsing password hash key: invalid")
	}
	if err := acquire(ctx); err != nil {
		return err
	}
	defer func() { <-hashSlots }()
	got := argon2.IDKey([]byte(password), salt, uint32(t), uint32(mem), uint8(p), uint32(len(want)))
	if subtle.ConstantTimeCompare(got, want) != 1 || !known {
		return ErrPasswordMismatch
	}
	return nil
}
