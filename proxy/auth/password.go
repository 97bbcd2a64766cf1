package auth

import (
	"context"

	"github.com/opencustody/ocv/internal/passhash"
)

// ErrPasswordMismatch is returned by VerifyPassword for a wrong password.
var ErrPasswordMismatch = passhash.ErrMismatch

// HashPassword returns an argon2id hash in PHC string format.
func HashPassword(ctx context.Context, password string) (string, error) {
	return passhash.Hash(ctx, password)
}

// VerifyPassword checks password against a PHC argon2id hash; an empty hash
// (no such user, or no password set) still costs one derivation and fails.
func VerifyPassword(ctx context.Context, hash, password string) error {
	return passhash.Verify(ctx, hash, password)
}
