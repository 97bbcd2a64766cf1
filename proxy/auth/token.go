package auth

import (
	"context"
	"errors"
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

// UserCutoffSource reads a user's current access token cut-off in an
// organization (its own or the all-organizations one; zero when none).
type UserCutoffSource interface {
	UserTokensNotBefore(ctx context.Context, userID, orgID string) (time.Time, error)
}
