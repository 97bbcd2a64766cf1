package auth

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/opencustody/ocv/enclave/wire"
)

// Principal types.
const (
	PrincipalUser  = "user"
	PrincipalAgent = "agent"
)

// ErrInvalidToken is returned for a token that is malformed, badly signed,
// expired, revoked or meant for another issuer or audience. Callers answer
// 401 and never say which.
var ErrInvalidToken = errors.New("invalid access token")

// Audience is the `aud` of every OCV access token.
const Audience = wire.TokenAudience

// Principal is an authenticated caller.
type Principal struct {
	Type      string
	ID        string
	OrgID     string
	Role      string
	TokenID   string
	ExpiresAt time.Time
	// PlatformRole is "", "admin" or "super_admin" (users only).
	PlatformRole string
	// APIKeyID is set when the caller presented a personal API key as its
	// bearer value (TokenID is then empty; ExpiresAt is the key's, zero when
	// it never expires).
	APIKeyID string
	// IssuedAt is when the token was minted (millisecond precision when
	// the token carries iat_ms, as every token minted now does).
	IssuedAt time.Time
	// Agent is set for agent principals.
	Agent *AgentClaims
}

// AgentClaims are the claims only agent tokens carry.
type AgentClaims struct {
	// Scopes are the path patterns the agent may reach; never nil ([]: none).
	Scopes                  []string
	Environment             string // "" when none
	IntentsAPIEnabled       bool
	ExecutionIntentsEnabled bool
	IntentsRequireTEE       bool
	ExecutionRequireTEE     bool
	// NotBefore is the agent's revocation cutoff when the token is minted:
	// the token's issue time is at least it, so a token minted right after
	// a revocation is not refused by it.
	NotBefore time.Time
}

// Signer mints a JWT from claims inside the enclave.
type Signer interface {
	SignJWT(ctx context.Context, claims []byte) (string, error)
}

// UserCutoffSource reads a user's current access token cut-off in an
// organization (its own or the all-organizations one; zero when none).
type UserCutoffSource interface {
	UserTokensNotBefore(ctx context.Context, userID, orgID string) (time.Time, error)
}

// DefaultAgentTTL is the lifetime of agent tokens.
const DefaultAgentTTL = 2 * time.Hour

// Minter issues access tokens.
type Minter struct {
	signer Signer
	issuer string
	ttl    time.Duration
	// AgentTTL is the lifetime of agent tokens (DefaultAgentTTL).
	AgentTTL time.Duration
	// Users, when set, gives a user's cut-off so that a token minted right
	// after it is stamped no earlier and is not refused by it.
	Users UserCutoffSource
	now   func() time.Time
}

// NewMinter returns a Minter for tokens from issuer: human tokens live ttl,
// agent tokens AgentTTL.
func NewMinter(s Signer, issuer string, ttl time.Duration) *Minter {
	return &Minter{signer: s, issuer: issuer, ttl: ttl, AgentTTL: DefaultAgentTTL, now: time.Now}
}

// Mint returns a signed access token for p and its lifetime. An agent
// principal (p.Type agent) needs p.Agent.
func (m *Minter) Mint(ctx context.Context, p Principal) (string, time.Duration, error) {
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return "", 0, fmt.Errorf("reading token id: %w", err)
	}
	now := m.now()
	if p.Type != PrincipalAgent && m.Users != nil {
		nb, err := m.Users.UserTokensNotBefore(ctx, p.ID, p.OrgID)
		if err != nil {
			return "", 0, fmt.Errorf("minting token: %w", err)
		}
		if now.Before(nb) {
			now = nb
		}
	}
	c, ttl, err := m.claims(p, now, hex.EncodeToString(jti))
	if err != nil {
		return "", 0, err
	}
	body, err := json.Marshal(c)
	if err != nil {
		return "", 0, fmt.Errorf("encoding claims: %w", err)
	}
	tok, err := m.signer.SignJWT(ctx, body)
	if err != nil {
		return "", 0, fmt.Errorf("signing token: %w", err)
	}
	return tok, ttl, nil
}

// errNoAgentClaims is a programmer error: an agent token without its claims.
var errNoAgentClaims = errors.New("minting agent token: agent claims missing")

// claims builds the claims of p's token issued at now.
func (m *Minter) claims(p Principal, now time.Time, jti string) (wire.Claims, time.Duration, error) {
	c := wire.Claims{
		Issuer: m.issuer, Subject: p.ID, Audience: Audience, ID: jti, OrgID: p.OrgID, Type: p.Type,
	}
	ttl := m.ttl
	if p.Type != PrincipalAgent {
		c.Role, c.PlatformRole = p.Role, p.PlatformRole
		c.IssuedAt, c.IssuedAtMs, c.ExpiresAt = now.Unix(), stampMs(now), now.Add(ttl).Unix()
		return c, ttl, nil
	}
	a := p.Agent
	if a == nil {
		return wire.Claims{}, 0, errNoAgentClaims
	}
	ttl = m.AgentTTL
	if now.Before(a.NotBefore) {
		now = a.NotBefore
	}
	ms := stampMs(now)
	scopes := append([]string{}, a.Scopes...)
	intents, execution := a.IntentsAPIEnabled, a.ExecutionIntentsEnabled
	c.IssuedAt, c.IssuedAtMs, c.ExpiresAt = now.Unix(), ms, now.Add(ttl).Unix()
	c.Scopes, c.Environment = &scopes, a.Environment
	c.IntentsAPIEnabled, c.ExecutionIntentsEnabled = &intents, &execution
	c.IntentsRequireTEE, c.ExecutionRequireTEE = a.IntentsRequireTEE, a.ExecutionRequireTEE
	return c, ttl, nil
}

// stampMs is t in Unix milliseconds rounded up, so that the stamp is never
// before a cut-off that t is not before.
func stampMs(t time.Time) int64 {
	ms := t.UnixMilli()
	if time.UnixMilli(ms).Before(t) {
		ms++
	}
	return ms
}
