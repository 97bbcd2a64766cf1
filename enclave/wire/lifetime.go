package wire

import (
	"errors"
	"fmt"
	"time"
)

// Principal types, the values of the principal_type claim.
const (
	PrincipalUser  = "user"
	PrincipalAgent = "agent"
)

// Token lifetimes. Both verifiers (the proxy's and the enclave's) refuse an
// access token whose lifetime, exp - iat, is longer than the configured
// lifetime of its principal type plus TokenClockSkew, and one whose iat is
// more than TokenClockSkew ahead of their clock, so that a token signed for
// ten years (or dated ten years ahead) is refused by both. The proxy mints
// exp = iat + the lifetime exactly, so its tokens always pass.
const (
	// DefaultUserTokenTTL is the default lifetime of a user's access token
	// (token_ttl, OCV_TOKEN_TTL), in the proxy and in the enclave.
	DefaultUserTokenTTL = 900 * time.Second
	// DefaultAgentTokenTTL is the default lifetime of an agent's access
	// token (agent_token_ttl, OCV_AGENT_TOKEN_TTL).
	DefaultAgentTokenTTL = 7200 * time.Second
	// MinTokenTTL and MaxTokenTTL bound a configured lifetime.
	MinTokenTTL = time.Minute
	MaxTokenTTL = 24 * time.Hour
	// TokenClockSkew is the fixed leeway for clocks that disagree: a
	// lifetime may exceed the configured one by at most this much, and iat
	// may be at most this far ahead of the verifier's clock.
	TokenClockSkew = 60 * time.Second
)

// ErrTokenLifetime reports a token whose iat is missing or too far ahead,
// or whose lifetime is not within the bound of its principal type.
var ErrTokenLifetime = errors.New("token lifetime out of bounds")

// TokenLifetimes are the configured lifetimes of access tokens by principal
// type. Both processes must be given the same values.
type TokenLifetimes struct {
	User  time.Duration
	Agent time.Duration
}

// DefaultTokenLifetimes are the default lifetimes.
func DefaultTokenLifetimes() TokenLifetimes {
	return TokenLifetimes{User: DefaultUserTokenTTL, Agent: DefaultAgentTokenTTL}
}

// Validate checks that both lifetimes are within MinTokenTTL and
// MaxTokenTTL; errors name the setting.
func (l TokenLifetimes) Validate() error {
	if l.User < MinTokenTTL || l.User > MaxTokenTTL {
		return fmt.Errorf("token_ttl must be between %v and %v", MinTokenTTL, MaxTokenTTL)
	}
	if l.Agent < MinTokenTTL || l.Agent > MaxTokenTTL {
		return fmt.Errorf("agent_token_ttl must be between %v and %v", MinTokenTTL, MaxTokenTTL)
	}
	return nil
}

// CheckLifetime checks the issue and expiry times of a token of
// principalType at now: iat must be present (not the zero time) and no
// more than TokenClockSkew ahead of now, exp must be after iat, and exp -
// iat at most the principal type's lifetime plus TokenClockSkew. An unknown
// principal type, or a lifetime that is not configured (zero), fails: fail
// closed. Every failure wraps ErrTokenLifetime.
func (l TokenLifetimes) CheckLifetime(principalType string, iat, exp, now time.Time) error {
	var ttl time.Duration
	switch principalType {
	case PrincipalUser:
		ttl = l.User
	case PrincipalAgent:
		ttl = l.Agent
	}
	switch {
	case ttl <= 0:
		return fmt.Errorf("%w: no lifetime for this principal type", ErrTokenLifetime)
	case iat.IsZero() || iat.Unix() <= 0:
		return fmt.Errorf("%w: iat is missing", ErrTokenLifetime)
	case iat.After(now.Add(TokenClockSkew)):
		return fmt.Errorf("%w: iat is in the future", ErrTokenLifetime)
	case !exp.After(iat):
		return fmt.Errorf("%w: exp is not after iat", ErrTokenLifetime)
	case exp.Sub(iat) > ttl+TokenClockSkew:
		return fmt.Errorf("%w: longer than the %s lifetime", ErrTokenLifetime, principalType)
	}
	return nil
}
