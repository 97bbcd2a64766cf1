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

// PrincipalSource answers whether the principal a token names is, now,
// there: for a user, a member of orgID with role whose platform role is
// platformRole ("" for none); for an agent, an active agent of orgID (role
// and platformRole ""). A principal that is not there is false and no
// error.
type PrincipalSource interface {
	HasPrincipal(ctx context.Context, principalType, id, orgID, role, platformRole string) (bool, error)
}

// maxTokenLen bounds what Verify parses.
const maxTokenLen = 4096

// verifiedCap bounds the cache of verified tokens; past it the cache is
// cleared, which costs only re-verification.
const verifiedCap = 100_000

// Verifier checks access tokens. A token is verified once (signature,
// claims, lifetime, revocation and its subject in the database) and then
// served from memory until it expires; revocation still applies at once,
// because every lookup also checks the revocation set that Revoked keeps
// current across replicas, and the user and agent cut-offs, which move
// when a user is deleted, leaves an organization or changes role, and when
// an agent is deactivated, changed or deleted.
//
// The claims must name a configured issuer, carry iat and live no longer
// than Lifetimes allows for their principal type (the rule of
// wire.TokenLifetimes.CheckLifetime, which the enclave applies too): a
// token that the enclave was made to sign for years is refused. Because
// of that bound, a cut-off needs to be remembered for one lifetime only
// (store.UserCutoffWindow, store.AgentCutoffWindow).
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
	// Principals checks, the first time a token is seen, that its subject
	// exists and is active in its organization with the roles it claims;
	// later changes reach the verifier as cut-offs. nil refuses every JWT
	// (fail closed).
	Principals PrincipalSource
	// Lifetimes bound a token's lifetime by principal type
	// (wire.DefaultTokenLifetimes unless set; the proxy's token_ttl and
	// agent_token_ttl).
	Lifetimes wire.TokenLifetimes
}

// NewVerifier accepts tokens from any of issuers (the current one first; the
// legacy ones are accepted, never minted).
func NewVerifier(keys KeySource, revoked RevocationChecker, issuers ...string) *Verifier {
	v := &Verifier{keys: keys, revoked: revoked, issuers: map[string]bool{}, now: time.Now,
		pub: map[string]*ecdsa.PublicKey{}, verified: map[string]Principal{}, Revoked: NewRevocationSet(),
		Agents: NewAgentCutoffs(), Users: NewUserCutoffs(), Lifetimes: wire.DefaultTokenLifetimes()}
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
	if err := v.checkPrincipal(ctx, p); err != nil {
		return Principal{}, err
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
	now := v.now()
	switch {
	case !v.issuers[c.Issuer], c.Audience != Audience, c.ID == "", c.Subject == "", c.OrgID == "",
		c.Type != PrincipalUser && c.Type != PrincipalAgent,
		now.Unix() >= c.ExpiresAt, !issuedAtMsAgrees(c),
		v.Lifetimes.CheckLifetime(c.Type, time.Unix(c.IssuedAt, 0), time.Unix(c.ExpiresAt, 0), now) != nil:
		return Principal{}, ErrInvalidToken
	}
	return principalOf(c), nil
}

// issuedAtMsAgrees reports whether iat_ms, when present, names the same
// issue time as iat: the minter stamps iat in whole seconds rounded down
// and iat_ms rounded up. The cut-offs compare iat_ms and the lifetime bound
// reads iat, so a token must not tell them apart (an iat_ms years ahead
// would pass every cut-off).
func issuedAtMsAgrees(c wire.Claims) bool {
	if c.IssuedAtMs == 0 {
		return true
	}
	d := c.IssuedAtMs - c.IssuedAt*1000
	return c.IssuedAt > 0 && d >= 0 && d <= 1000
}

// checkPrincipal refuses a token whose subject is not, now, an existing
// active principal of its organization with the roles it claims: a user
// who is a member (a deleted user, or one who left, is not) with that org
// role and platform role, an active agent (a deactivated or deleted one is
// not). It runs once per token, when the
// token is first verified; after that the cut-offs carry every change.
func (v *Verifier) checkPrincipal(ctx context.Context, p Principal) error {
	if v.Principals == nil {
		return ErrInvalidToken
	}
	ok, err := v.Principals.HasPrincipal(ctx, p.Type, p.ID, p.OrgID, p.Role, p.PlatformRole)
	if err != nil {
		return fmt.Errorf("checking the token's subject: %w", err)
	}
	if !ok {
		return ErrInvalidToken
	}
	return nil
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
