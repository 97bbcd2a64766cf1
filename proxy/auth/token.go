package auth

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"
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
const Audience = "ocv"

// Claims are the JWT claims OCV mints (SPEC-DECISIONS: jti, sub, org_id,
// iat, exp, iss, aud) plus the principal type and role.
type Claims struct {
	Issuer    string `json:"iss"`
	Subject   string `json:"sub"`
	Audience  string `json:"aud"`
	IssuedAt  int64  `json:"iat"`
	ExpiresAt int64  `json:"exp"`
	ID        string `json:"jti"`
	OrgID     string `json:"org_id"`
	Type      string `json:"principal_type"`
	Role      string `json:"role,omitempty"`
	// PlatformRole is "admin" or "super_admin" for platform administrators.
	PlatformRole string `json:"platform_role,omitempty"`
}

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
}

// Signer mints a JWT from claims inside the enclave.
type Signer interface {
	SignJWT(ctx context.Context, claims []byte) (string, error)
}

// Minter issues access tokens.
type Minter struct {
	signer Signer
	issuer string
	ttl    time.Duration
	now    func() time.Time
}

// NewMinter returns a Minter for tokens from issuer that live ttl.
func NewMinter(s Signer, issuer string, ttl time.Duration) *Minter {
	return &Minter{signer: s, issuer: issuer, ttl: ttl, now: time.Now}
}

// Mint returns a signed access token for p and its lifetime.
func (m *Minter) Mint(ctx context.Context, p Principal) (string, time.Duration, error) {
	now := m.now()
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return "", 0, fmt.Errorf("reading token id: %w", err)
	}
	c := Claims{
		Issuer: m.issuer, Subject: p.ID, Audience: Audience, IssuedAt: now.Unix(),
		ExpiresAt: now.Add(m.ttl).Unix(), ID: hex.EncodeToString(jti), OrgID: p.OrgID, Type: p.Type, Role: p.Role,
		PlatformRole: p.PlatformRole,
	}
	body, err := json.Marshal(c)
	if err != nil {
		return "", 0, fmt.Errorf("encoding claims: %w", err)
	}
	tok, err := m.signer.SignJWT(ctx, body)
	if err != nil {
		return "", 0, fmt.Errorf("signing token: %w", err)
	}
	return tok, m.ttl, nil
}
