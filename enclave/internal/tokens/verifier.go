package tokens

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/keyvault"
)

// MaxTokenLen bounds a token Verify will parse (wire.MaxTokenLen).
const MaxTokenLen = 32 << 10

// Config configures a Verifier. Keys holds the token-signing key under
// KeyID; a kid is KIDPrefix followed by the version in decimal
// ("ocv-jwt-v3"). Audience is the aud every token must name. CacheSize is
// the number of verified tokens kept (0 disables the cache).
//
// Issuer is the current iss (the proxy's public URL); LegacyIssuers are
// earlier ones, still accepted here (the enclave only validates tokens).
// Lifetimes bound exp - iat per principal type (wire.TokenLifetimes). They
// come from the enclave's own configuration, never from a request.
type Config struct {
	Keys          keyvault.KeyStore
	KeyID         string
	KIDPrefix     string
	Audience      string
	CacheSize     int
	Issuer        string
	LegacyIssuers []string
	Lifetimes     wire.TokenLifetimes
}

// Verifier verifies access tokens. It is safe for concurrent use.
type Verifier struct {
	cfg     Config
	issuers map[string]bool // the current issuer and the legacy ones
	cache   *cache

	mu   sync.RWMutex
	keys map[string]*ecdsa.PublicKey // by kid; a key version never changes
}

// New returns a Verifier.
func New(cfg Config) (*Verifier, error) {
	if cfg.Keys == nil || cfg.KeyID == "" || cfg.KIDPrefix == "" || cfg.Audience == "" || cfg.CacheSize < 0 || cfg.Issuer == "" {
		return nil, fmt.Errorf("%w: key store, key id, kid prefix, audience and issuer are required", ErrInvalidConfig)
	}
	if err := cfg.Lifetimes.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	issuers := map[string]bool{cfg.Issuer: true}
	for _, iss := range cfg.LegacyIssuers {
		if iss == "" {
			return nil, fmt.Errorf("%w: an empty legacy issuer", ErrInvalidConfig)
		}
		issuers[iss] = true
	}
	return &Verifier{cfg: cfg, issuers: issuers, cache: newCache(cfg.CacheSize), keys: map[string]*ecdsa.PublicKey{}}, nil
}

// b64 is base64url without padding, refusing non-canonical trailing bits,
// so one token has exactly one spelling.
var b64 = base64.RawURLEncoding.Strict()

// Verify checks token at now and returns its claims. A token that fails any
// check gives an error wrapping ErrInvalidToken (and ErrExpired when it
// only expired); a key-store failure while looking up the signing key is
// returned as it is, so the caller can tell an outage from a bad token.
func (v *Verifier) Verify(ctx context.Context, token string, now time.Time) (Claims, error) {
	if token == "" || len(token) > MaxTokenLen {
		return Claims{}, invalid("empty or too long")
	}
	key := sha256.Sum256([]byte(token))
	if c, ok := v.cache.get(key); ok {
		return c, checkTime(c.ExpiresAt, time.Time{}, now)
	}
	c, nbf, err := v.verify(ctx, token)
	if err != nil {
		return Claims{}, err
	}
	if err := v.checkRules(c, now); err != nil {
		return Claims{}, err
	}
	if err := checkTime(c.ExpiresAt, nbf, now); err != nil {
		return Claims{}, err
	}
	if nbf.IsZero() {
		// A token with nbf is rare and not cached: the cache checks only exp.
		v.cache.put(key, c)
	}
	return c, nil
}

// checkRules refuses a token from an issuer this enclave does not know, or
// one whose lifetime is not within the bound of its principal type (which
// also needs iat, and iat no further ahead than the clock skew). A cached
// token passed them when it was first seen, and neither gets any better
// with time, so the cache does not check them again.
func (v *Verifier) checkRules(c Claims, now time.Time) error {
	if !v.issuers[c.Issuer] {
		return invalid("iss names no issuer of this service")
	}
	if err := v.cfg.Lifetimes.CheckLifetime(c.PrincipalType, c.IssuedAt, c.ExpiresAt, now); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidToken, err)
	}
	return nil
}

// checkTime refuses a token at or past exp, or before nbf.
func checkTime(exp, nbf, now time.Time) error {
	if !now.Before(exp) {
		return fmt.Errorf("%w: %w", ErrInvalidToken, ErrExpired)
	}
	if !nbf.IsZero() && now.Before(nbf) {
		return invalid("not yet valid")
	}
	return nil
}

// verify parses token and checks its header and signature.
func (v *Verifier) verify(ctx context.Context, token string) (Claims, time.Time, error) {
	hdrB64, rest, ok := strings.Cut(token, ".")
	payloadB64, sigB64, ok2 := strings.Cut(rest, ".")
	if !ok || !ok2 || strings.Contains(sigB64, ".") {
		return Claims{}, time.Time{}, invalid("not a compact JWS")
	}
	hdr, err := b64.DecodeString(hdrB64)
	if err != nil {
		return Claims{}, time.Time{}, invalid("header is not base64url")
	}
	kid, err := parseHeader(hdr)
	if err != nil {
		return Claims{}, time.Time{}, err
	}
	sig, err := b64.DecodeString(sigB64)
	if err != nil || len(sig) != 64 {
		return Claims{}, time.Time{}, invalid("signature is not 64 bytes of base64url")
	}
	pub, err := v.publicKey(ctx, kid)
	if err != nil {
		return Claims{}, time.Time{}, err
	}
	if !verifyES256(pub, token[:len(hdrB64)+1+len(payloadB64)], sig) {
		return Claims{}, time.Time{}, invalid("bad signature")
	}
	payload, err := b64.DecodeString(payloadB64)
	if err != nil {
		return Claims{}, time.Time{}, invalid("payload is not base64url")
	}
	return parseClaims(payload, v.cfg.Audience)
}

// parseHeader accepts {"alg":"ES256","kid":…} with an optional typ "JWT"
// and nothing critical: the enclave mints exactly this header.
func parseHeader(hdr []byte) (string, error) {
	fields, err := objectFields(hdr)
	if err != nil {
		return "", err
	}
	var alg, kid, typ string
	if json.Unmarshal(fields["alg"], &alg) != nil || alg != "ES256" {
		return "", invalid("alg is not ES256")
	}
	if json.Unmarshal(fields["kid"], &kid) != nil || kid == "" {
		return "", invalid("kid is missing")
	}
	if raw, ok := fields["typ"]; ok && (json.Unmarshal(raw, &typ) != nil || typ != "JWT") {
		return "", invalid("typ is not JWT")
	}
	if _, ok := fields["crit"]; ok {
		return "", invalid("critical header parameters are not understood")
	}
	return kid, nil
}

var p256HalfN = new(big.Int).Rsh(elliptic.P256().Params().N, 1)

// verifyES256 checks a raw r‖s signature over SHA-256(msg). A high-S
// signature is refused: the enclave only mints low-S ones, so accepting
// both would give a token two spellings.
func verifyES256(pub *ecdsa.PublicKey, msg string, sig []byte) bool {
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
	if s.Cmp(p256HalfN) > 0 {
		return false
	}
	digest := sha256.Sum256([]byte(msg))
	return ecdsa.Verify(pub, digest[:], r, s)
}

// publicKey returns the public key a kid names, from the key store on
// first use. Unknown kids are not remembered (the key may be created later
// by a rotation).
func (v *Verifier) publicKey(ctx context.Context, kid string) (*ecdsa.PublicKey, error) {
	v.mu.RLock()
	pub, ok := v.keys[kid]
	v.mu.RUnlock()
	if ok {
		return pub, nil
	}
	rest, ok := strings.CutPrefix(kid, v.cfg.KIDPrefix)
	n, err := strconv.ParseUint(rest, 10, 32)
	if !ok || err != nil || n == 0 || strconv.FormatUint(n, 10) != rest {
		return nil, invalid("kid names no token-signing key")
	}
	info, err := v.cfg.Keys.Key(ctx, keyvault.KeyRef{ID: v.cfg.KeyID, Version: uint32(n)})
	if errors.Is(err, keyvault.ErrKeyNotFound) {
		return nil, invalid("kid names no token-signing key")
	}
	if err != nil {
		return nil, fmt.Errorf("reading token-signing key: %w", err)
	}
	pub, ok = info.Public.(*ecdsa.PublicKey)
	if info.Algorithm != keyvault.P256 || !ok {
		return nil, invalid("kid names a key that is not P-256")
	}
	v.mu.Lock()
	v.keys[kid] = pub
	v.mu.Unlock()
	return pub, nil
}
