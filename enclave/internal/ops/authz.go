package ops

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/opencustody/ocv/enclave/internal/floors"
	"github.com/opencustody/ocv/enclave/internal/tokens"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/keyvault"
	"github.com/opencustody/ocv/policy"
)

// TokenAudience is the aud every access token must name.
const TokenAudience = wire.TokenAudience

// tokenCacheSize is the number of verified access tokens kept.
const tokenCacheSize = 8192

// authorizer enforces, inside the enclave, who may open and seal which
// secret: the caller's token (verified against the enclave's own keys) and
// the vault's MAC'd policy set, evaluated with the policy package. It also
// MACs new policy sets. Safe for concurrent use.
type authorizer struct {
	verifier *tokens.Verifier
	macer    keyvault.MACer
	// requireToken false lets a request without a token through
	// unchecked. Transitional only (the proxy does not send tokens yet);
	// never for production.
	requireToken bool
	now          func() time.Time
	// floors hold, durably in the HSM, the newest sealed policy and
	// guardrail sets (setfloors.go) and the revocation floors (sign-outs
	// and cut-offs, revocation.go); nil refuses every token (fail closed).
	floors    *floors.Store
	sets      *setCache[*sealedSet]
	guardSets *setCache[*verifiedGuardrails]
}

func newAuthorizer(ctx context.Context, ks keyvault.KeyStore, cfg Config, now func() time.Time, fl *floors.Store) (*authorizer, error) {
	macer, ok := ks.(keyvault.MACer)
	if !ok {
		return nil, fmt.Errorf("preparing authorisation: key store cannot compute MACs: %w", keyvault.ErrUnsupported)
	}
	if err := ensurePolicyMACKey(ctx, ks); err != nil {
		return nil, err
	}
	v, err := tokens.New(tokens.Config{Keys: ks, KeyID: JWTKeyID, KIDPrefix: KIDPrefix, Audience: TokenAudience, CacheSize: tokenCacheSize,
		Issuer: cfg.Issuer, LegacyIssuers: cfg.LegacyIssuers, Lifetimes: cfg.TokenLifetimes})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return &authorizer{
		verifier: v, macer: macer, requireToken: cfg.RequireCallerToken, now: now,
		floors: fl, sets: newSetCache[*sealedSet](policySetCacheBytes),
		guardSets: newSetCache[*verifiedGuardrails](guardrailSetCacheBytes),
	}, nil
}

// forbidden is a refusal. why stays in the enclave's logs; the proxy only
// ever sees wire.ErrForbidden.
func forbidden(why string) error {
	return fmt.Errorf("%w: %s", wire.ErrForbidden, why)
}

// verifyToken verifies an access token at the enclave's clock and refuses
// a revoked one (checkRevocation). A bad token is Forbidden; a key-store
// failure while looking up the key or a floor is an outage.
func (a *authorizer) verifyToken(ctx context.Context, token string) (tokens.Claims, error) {
	c, err := a.verifySigned(ctx, token)
	if err != nil {
		return tokens.Claims{}, err
	}
	if err := a.checkRevocation(ctx, c); err != nil {
		return tokens.Claims{}, err
	}
	return c, nil
}

// access is one Open (read) or Seal (write) to authorise.
type access struct {
	OrgID, VaultID, Path string
	Permission           policy.Permission
	Token                string
	PolicySet, PolicyMAC []byte
	ClientIP             string
}

// authorize decides a, before any key is touched. Owners and admins (users)
// may do everything in their org; members and agents need the vault's
// current MAC'd policy set to allow the access, and an agent whose token
// carries scopes needs the path in scope too.
func (a *authorizer) authorize(ctx context.Context, r *access) error {
	_, err := a.authorizeClaims(ctx, r)
	return err
}

// authorizeClaims is authorize that also returns the verified claims of the
// caller (zero claims for a tokenless transitional request).
func (a *authorizer) authorizeClaims(ctx context.Context, r *access) (tokens.Claims, error) {
	if r.Token == "" && !a.requireToken {
		return tokens.Claims{}, nil // transitional: see requireToken
	}
	c, err := a.verifyToken(ctx, r.Token)
	if err != nil {
		return tokens.Claims{}, err
	}
	if c.OrgID != r.OrgID {
		return tokens.Claims{}, forbidden("token of another organization")
	}
	if c.PrincipalType == policy.PrincipalUser && c.Role.BypassesPolicies() {
		return c, nil
	}
	if c.PrincipalType == policy.PrincipalAgent && c.HasScopes && !policy.InScopes(c.Scopes, r.Path) {
		return tokens.Claims{}, forbidden("path outside the agent's scopes")
	}
	set, err := a.loadSet(ctx, r.OrgID, r.PolicySet, r.PolicyMAC)
	if err != nil {
		return tokens.Claims{}, err
	}
	if set.vaultID != r.VaultID {
		return tokens.Claims{}, forbidden("policy set of another vault")
	}
	if err := a.checkSetFloor(ctx, policyFloorName(r.OrgID, r.VaultID), "policy set", set.version, set.digest); err != nil {
		return tokens.Claims{}, err
	}
	ip, err := netip.ParseAddr(r.ClientIP)
	if err != nil {
		ip = netip.Addr{} // unknown: IP conditions cannot hold
	}
	d := policy.Evaluate(set.policies, policy.Request{
		PrincipalType: c.PrincipalType, PrincipalID: c.Subject, Path: r.Path, Permission: r.Permission,
		ClientIP: ip, Environment: c.Environment, Now: a.now(),
	})
	if !d.Allowed {
		return tokens.Claims{}, forbidden("not allowed by the vault's policies")
	}
	return c, nil
}
