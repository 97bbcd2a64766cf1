package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/opencustody/ocv/enclave/wire"
)

// KeySource lists the enclave's token-signing public keys.
type KeySource interface {
	PublicKeys(ctx context.Context) ([]wire.PublicKey, error)
}

// RevocationChecker answers whether a token id was revoked.
type RevocationChecker interface {
	IsTokenRevoked(ctx context.Context, jti string) (bool, error)
}

// maxTokenLen bounds what Verify parses.
const maxTokenLen = 4096

// verifiedCap bounds the cache of verified tokens; past it the cache is
// cleared, which costs only re-verification.
const verifiedCap = 100_000

// Verifier checks access tokens. A token is verified once (signature, claims,
// revocation in the database) and then served from memory until it expires;
// revocation still applies at once, because every lookup also checks the
// revocation set that Revoked keeps current across replicas.
type Verifier struct {
	keys     KeySource
	revoked  RevocationChecker
	issuers  map[string]bool
	now      func() time.Time
	keyMu    sync.RWMutex
	pub      map[string]*ecdsa.PublicKey
	keysAt   time.Time
	cacheMu  sync.RWMutex
	verified map[string]Principal
	Revoked  *RevocationSet
	// APIKeys authenticates personal API keys; nil refuses them.
	APIKeys *APIKeyVerifier
	// Agents holds the agents' revocation cutoffs.
	Agents *AgentCutoffs
	// Users holds the users' access token cut-offs.
	Users *UserCutoffs
}

// NewVerifier accepts tokens from any of issuers (the current one first; the
// legacy ones are accepted, never minted).
func NewVerifier(keys KeySource, revoked RevocationChecker, issuers ...string) *Verifier {
	v := &Verifier{keys: keys, revoked: revoked, issuers: map[string]bool{}, now: time.Now,
		pub: map[string]*ecdsa.PublicKey{}, verified: map[string]Principal{}, Revoked: NewRevocationSet(),
		Agents: NewAgentCutoffs(), Users: NewUserCutoffs()}
	for _, iss := range issuers {
		v.issuers[iss] = true
	}
	return v
}

// Verify authenticates a bearer token: a JWT, or a personal API key (by its
// prefix) when APIKeys is set.
func (v *Verifier) Verify(ctx context.Context, token string) (Principal, error) {
	if strings.HasPrefix(token, APIKeyPrefix) {
		if v.APIKeys == nil {
			return Principal{}, ErrInvalidToken
		}
		return v.APIKeys.Verify(ctx, token)
	}
	v.cacheMu.RLock()
	p, ok := v.verified[token]
	v.cacheMu.RUnlock()
	if ok {
		if !v.now().Before(p.ExpiresAt) || v.Revoked.Has(p.TokenID) || v.cutOff(p) {
			return Principal{}, ErrInvalidToken
		}
		return p, nil
	}
	p, err := v.verify(ctx, token)
	if err != nil {
		return Principal{}, err
	}
	if v.cutOff(p) {
		return Principal{}, ErrInvalidToken
	}
	revoked, err := v.revoked.IsTokenRevoked(ctx, p.TokenID)
	if err != nil {
		return Principal{}, fmt.Errorf("checking revocation: %w", err)
	}
	if revoked {
		v.Revoked.Add(p.TokenID, p.ExpiresAt)
		return Principal{}, ErrInvalidToken
	}
	v.cacheMu.Lock()
	if len(v.verified) >= verifiedCap {
		v.verified = map[string]Principal{}
	}
	v.verified[token] = p
	v.cacheMu.Unlock()
	return p, nil
}

func (v *Verifier) verify(ctx context.Context, token string) (Principal, error) {
	if len(token) > maxTokenLen {
		return Principal{}, ErrInvalidToken
	}
	h, rest, ok1 := strings.Cut(token, ".")
	payload, sig, ok2 := strings.Cut(rest, ".")
	if !ok1 || !ok2 {
		return Principal{}, ErrInvalidToken
	}
	var header struct {
		Alg string `json:"alg"`
		Kid string `json:"kid"`
	}
	if err := decodeSegment(h, &header); err != nil || header.Alg != "ES256" {
		return Principal{}, ErrInvalidToken
	}
	key, err := v.key(ctx, header.Kid)
	if err != nil {
		return Principal{}, err
	}
	rawSig, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || len(rawSig) != 64 {
		return Principal{}, ErrInvalidToken
	}
	digest := sha256.Sum256([]byte(token[:len(h)+1+len(payload)]))
	r, s := new(big.Int).SetBytes(rawSig[:32]), new(big.Int).SetBytes(rawSig[32:])
	if !ecdsa.Verify(key, digest[:], r, s) {
		return Principal{}, ErrInvalidToken
	}
	var c wire.Claims
	if err := decodeSegment(payload, &c); err != nil {
		return Principal{}, ErrInvalidToken
	}
	now := v.now().Unix()
	switch {
	case !v.issuers[c.Issuer], c.Audience != Audience, c.ID == "", c.Subject == "", c.OrgID == "",
		c.Type != PrincipalUser && c.Type != PrincipalAgent,
		now >= c.ExpiresAt, c.IssuedAt > now+60:
		return Principal{}, ErrInvalidToken
	}
	return principalOf(c), nil
}

// principalOf turns verified claims into the caller.
func principalOf(c wire.Claims) Principal {
	p := Principal{Type: c.Type, ID: c.Subject, OrgID: c.OrgID, TokenID: c.ID, ExpiresAt: time.Unix(c.ExpiresAt, 0),
		IssuedAt: time.Unix(c.IssuedAt, 0)}
	if c.IssuedAtMs != 0 {
		p.IssuedAt = time.UnixMilli(c.IssuedAtMs)
	}
	if c.Type != PrincipalAgent {
		p.Role, p.PlatformRole = c.Role, c.PlatformRole
		return p
	}
	a := &AgentClaims{Scopes: []string{}, Environment: c.Environment, IntentsRequireTEE: c.IntentsRequireTEE,
		ExecutionRequireTEE: c.ExecutionRequireTEE}
	if c.Scopes != nil {
		a.Scopes = *c.Scopes
	}
	if c.IntentsAPIEnabled != nil {
		a.IntentsAPIEnabled = *c.IntentsAPIEnabled
	}
	if c.ExecutionIntentsEnabled != nil {
		a.ExecutionIntentsEnabled = *c.ExecutionIntentsEnabled
	}
	p.Agent = a
	return p
}

// cutOff reports whether p's token was issued before its agent's or its
// user's cut-off.
func (v *Verifier) cutOff(p Principal) bool {
	if p.Type == PrincipalAgent {
		return v.Agents != nil && v.Agents.Refuses(p.ID, p.IssuedAt)
	}
	return v.Users != nil && v.Users.Refuses(p.ID, p.OrgID, p.IssuedAt)
}

func decodeSegment(seg string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// keyRefreshInterval limits how often an unknown kid makes the verifier ask
// the enclave for its keys again.
const keyRefreshInterval = 10 * time.Second

func (v *Verifier) key(ctx context.Context, kid string) (*ecdsa.PublicKey, error) {
	v.keyMu.RLock()
	k, ok := v.pub[kid]
	fresh := v.now().Sub(v.keysAt) < keyRefreshInterval
	v.keyMu.RUnlock()
	if ok {
		return k, nil
	}
	if fresh {
		return nil, ErrInvalidToken
	}
	if err := v.RefreshKeys(ctx); err != nil {
		return nil, err
	}
	v.keyMu.RLock()
	k, ok = v.pub[kid]
	v.keyMu.RUnlock()
	if !ok {
		return nil, ErrInvalidToken
	}
	return k, nil
}

// RefreshKeys reloads the signing keys from the enclave.
func (v *Verifier) RefreshKeys(ctx context.Context) error {
	keys, err := v.keys.PublicKeys(ctx)
	if err != nil {
		return fmt.Errorf("loading token keys: %w", err)
	}
	pub := make(map[string]*ecdsa.PublicKey, len(keys))
	for _, k := range keys {
		if k.Alg != "ES256" || len(k.X) != 32 || len(k.Y) != 32 {
			continue
		}
		raw := append(append([]byte{4}, k.X...), k.Y...)
		pk, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), raw)
		if err != nil {
			continue
		}
		pub[k.KID] = pk
	}
	v.keyMu.Lock()
	v.pub, v.keysAt = pub, v.now()
	v.keyMu.Unlock()
	return nil
}
