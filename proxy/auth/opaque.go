package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
)

// Prefixes of OCV's opaque credentials (SPEC-DECISIONS "Tokens and keys":
// a service prefix ending in '_'), so that a leaked value is recognisable.
const (
	APIKeyPrefix  = "ocvk_" // personal API keys
	RefreshPrefix = "ocvr_" // refresh tokens
	InvitePrefix  = "ocvi_" // organization invitations
)

// opaqueBytes is the entropy of every opaque credential.
const opaqueBytes = 32

// opaqueLen is the length of the encoded random part (base64url, no padding).
var opaqueLen = base64.RawURLEncoding.EncodedLen(opaqueBytes)

// NewOpaque returns a fresh credential, prefix followed by 32 random bytes
// in base64url, and its SHA-256. Only the hash is ever stored: with 256
// random bits a fast hash cannot be brute-forced, and a lookup by hash
// compares no secret byte by byte in application code.
func NewOpaque(prefix string) (token string, hash []byte, err error) {
	b := make([]byte, opaqueBytes)
	if _, err := rand.Read(b); err != nil {
		return "", nil, fmt.Errorf("reading random credential: %w", err)
	}
	token = prefix + base64.RawURLEncoding.EncodeToString(b)
	return token, HashOpaque(token), nil
}

// HashOpaque returns the SHA-256 of a credential, as stored.
func HashOpaque(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// WellFormed reports whether token has the shape NewOpaque(prefix) gives,
// so that garbage is refused before any database lookup.
func WellFormed(prefix, token string) bool {
	rest, ok := strings.CutPrefix(token, prefix)
	if !ok || len(rest) != opaqueLen {
		return false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// LastFour returns the last four characters of a credential, for listings.
func LastFour(token string) string {
	if len(token) < 4 {
		return ""
	}
	return token[len(token)-4:]
}
