package ops

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/opencustody/ocv/enclave/internal/floors"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/passhash"
)

// principal is whom a token is minted for, taken from sealed records only.
type principal struct {
	typ, id, org, role, platformRole string
	user                             string // the user id behind a user principal
	agent                            *wire.IdentityRecord
}

// mintToken checks a credential against the sealed records it must match
// and mints a token whose claims come from those records alone.
func (id *identity) mintToken(ctx context.Context, req *wire.MintTokenRequest) (wire.MintTokenResponse, error) {
	recs, err := id.openAll(ctx, req.Records)
	if err != nil {
		return wire.MintTokenResponse{}, err
	}
	now := id.now()
	var p principal
	var rotate *wire.IdentityRecord // the refresh record a refresh replaces
	switch req.Credential {
	case wire.CredPassword:
		p, err = userPrincipal(recs, 0)
		if err == nil && !checkPassword(ctx, recs[wire.IdentityUser].PasswordVerifier, req.Secret) {
			err = forbidden("password does not match")
		}
	case wire.CredAPIKey:
		p, err = userPrincipal(recs, wire.IdentityAPIKey)
		if err == nil {
			err = checkKeyRecord(recs[wire.IdentityAPIKey], &p, req.Secret, now)
		}
	case wire.CredRefresh:
		p, err = userPrincipal(recs, wire.IdentityRefresh)
		if err == nil {
			rotate = recs[wire.IdentityRefresh]
			err = checkKeyRecord(rotate, &p, req.Secret, now)
		}
	case wire.CredAgentKey:
		p, err = agentPrincipal(recs, req.Secret, now)
	case wire.CredShare:
		p, err = sharePrincipal(recs, req.Secret, now)
	default:
		err = forbidden("no credential")
	}
	if err != nil {
		return wire.MintTokenResponse{}, err
	}
	var refreshMAC []byte
	if req.NextRefresh != nil || rotate != nil {
		if refreshMAC, err = id.nextRefresh(ctx, &p, rotate, req.NextRefresh, req.Credential); err != nil {
			return wire.MintTokenResponse{}, err
		}
	}
	resp, err := id.mint(ctx, &p, now, req.NotBeforeMs)
	resp.RefreshMAC = refreshMAC
	return resp, err
}

// userPrincipal takes a user principal from exactly a user record, a
// membership of it and (extra, unless 0) one more record of that user in
// that organization; all active.
func userPrincipal(recs map[wire.IdentityKind]*wire.IdentityRecord, extra wire.IdentityKind) (principal, error) {
	u, m := recs[wire.IdentityUser], recs[wire.IdentityMember]
	want := 2
	if extra != 0 {
		want = 3
		if e := recs[extra]; e == nil || u == nil || m == nil || e.UserID != u.UserID || e.OrgID != m.OrgID {
			return principal{}, forbidden("credential record of another principal")
		}
	}
	switch {
	case u == nil || m == nil || len(recs) != want:
		return principal{}, forbidden("records do not fit the credential")
	case m.UserID != u.UserID:
		return principal{}, forbidden("membership of another user")
	case u.Status != wire.StatusActive || m.Status != wire.StatusActive:
		return principal{}, forbidden("principal not active")
	}
	return principal{typ: wire.PrincipalUser, id: u.UserID, user: u.UserID, org: m.OrgID, role: m.Role, platformRole: u.Role}, nil
}

// checkKeyRecord checks an API key or refresh token against its record.
func checkKeyRecord(r *wire.IdentityRecord, p *principal, secret string, now time.Time) error {
	if r.ExpiresMs != 0 && now.UnixMilli() >= r.ExpiresMs {
		return forbidden("credential expired")
	}
	if !matchesVerifier(r.Verifiers, secret) {
		return forbidden("credential does not match")
	}
	return nil
}

// agentPrincipal takes an agent principal from exactly an active agent
// record whose key verifiers include the secret's.
func agentPrincipal(recs map[wire.IdentityKind]*wire.IdentityRecord, secret string, now time.Time) (principal, error) {
	a := recs[wire.IdentityAgent]
	switch {
	case a == nil || len(recs) != 1:
		return principal{}, forbidden("records do not fit the credential")
	case a.Status != wire.StatusActive:
		return principal{}, forbidden("agent not active")
	case a.ExpiresMs != 0 && now.UnixMilli() >= a.ExpiresMs:
		return principal{}, forbidden("agent key expired")
	case !matchesVerifier(a.Verifiers, secret):
		return principal{}, forbidden("agent key does not match")
	}
	return principal{typ: wire.PrincipalAgent, id: a.ID, org: a.OrgID, agent: a}, nil
}

// sharePrincipal takes the creator of a share, a user (user and member
// records) or an agent (its record, its key not needed), from the share
// record the capability matches.
func sharePrincipal(recs map[wire.IdentityKind]*wire.IdentityRecord, secret string, now time.Time) (principal, error) {
	sh := recs[wire.IdentityShare]
	if sh == nil {
		return principal{}, forbidden("no share record")
	}
	var p principal
	var err error
	if a := recs[wire.IdentityAgent]; a != nil {
		if len(recs) != 2 || a.ID != sh.UserID || a.OrgID != sh.OrgID || a.Status != wire.StatusActive {
			return principal{}, forbidden("share of another agent")
		}
		p = principal{typ: wire.PrincipalAgent, id: a.ID, org: a.OrgID, agent: a}
	} else if p, err = userPrincipal(recs, wire.IdentityShare); err != nil {
		return principal{}, err
	}
	return p, checkKeyRecord(sh, &p, secret, now)
}

// matchesVerifier compares SHA-256(secret) with every verifier in constant
// time.
func matchesVerifier(vs [][32]byte, secret string) bool {
	if secret == "" {
		return false
	}
	h := sha256.Sum256([]byte(secret))
	ok := 0
	for i := range vs {
		ok |= subtle.ConstantTimeCompare(h[:], vs[i][:])
	}
	return ok == 1
}

// nextRefresh seals the refresh record that comes with the token: a new
// family's first at a password sign-in, or the rotation of the presented
// one (same family, next version; the old token is then refused).
func (id *identity) nextRefresh(ctx context.Context, p *principal, old *wire.IdentityRecord, next []byte, cred uint8) ([]byte, error) {
	var n wire.IdentityRecord
	if err := n.Decode(next); err != nil || n.Kind != wire.IdentityRefresh {
		return nil, fmt.Errorf("%w: next refresh record", wire.ErrBadRequest)
	}
	switch {
	case n.OrgID != p.org || n.UserID != p.user:
		return nil, forbidden("refresh record of another principal")
	case cred == wire.CredRefresh && (old == nil || n.ID != old.ID || n.Version != old.Version+1):
		return nil, forbidden("refresh rotation out of sequence")
	case cred == wire.CredPassword && n.Version != 1:
		return nil, forbidden("a sign-in starts a new refresh family")
	case cred != wire.CredRefresh && cred != wire.CredPassword:
		return nil, forbidden("no refresh token for this credential")
	}
	maxLife := int64(31 * 24 * time.Hour / time.Millisecond)
	if n.ExpiresMs == 0 || n.ExpiresMs > id.now().UnixMilli()+maxLife {
		return nil, forbidden("refresh record lifetime")
	}
	_, mac, err := id.seal(ctx, &n)
	return mac, err
}

// cutoff is the newest token cut-off of p (unix ms; 0: none).
func (id *identity) cutoff(ctx context.Context, p *principal) (int64, error) {
	names := []string{"cutoff/" + p.org + "/" + p.id}
	if p.user != "" {
		names = append(names, "cutoff/-/"+p.user)
	}
	var nb int64
	for _, n := range names {
		f, err := id.floors.Get(ctx, n)
		switch {
		case errors.Is(err, floors.ErrNoFloor):
			continue
		case err != nil:
			return 0, fmt.Errorf("%w: %w", wire.ErrUnavailable, err)
		}
		nb = max(nb, f.NotBefore)
	}
	return nb, nil
}

// mint signs the claims of p: issuer and lifetime from the enclave's
// configuration, the issue time no earlier than p's cut-off.
func (id *identity) mint(ctx context.Context, p *principal, now time.Time, hint int64) (wire.MintTokenResponse, error) {
	nb, err := id.cutoff(ctx, p)
	if err != nil {
		return wire.MintTokenResponse{}, err
	}
	if hint > now.UnixMilli()+wire.TokenClockSkew.Milliseconds() {
		return wire.MintTokenResponse{}, fmt.Errorf("%w: not-before too far ahead", wire.ErrBadRequest)
	}
	nb = max(nb, hint)
	// Rounded up, so that a token minted right after a cut-off at a finer
	// precision (the proxy's) is never before it.
	ms := now.UnixMilli()
	if time.UnixMilli(ms).Before(now) {
		ms++
	}
	if nb == math.MaxInt64 || nb > ms+wire.TokenClockSkew.Milliseconds() {
		return wire.MintTokenResponse{}, forbidden("principal cut off")
	}
	ms = max(ms, nb)
	iat := time.UnixMilli(ms)
	ttl := id.lifetimes.User
	if p.typ == wire.PrincipalAgent {
		ttl = id.lifetimes.Agent
	}
	if ttl <= 0 {
		return wire.MintTokenResponse{}, forbidden("no token lifetime configured")
	}
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return wire.MintTokenResponse{}, fmt.Errorf("%w: reading token id: %w", wire.ErrInternal, err)
	}
	c := wire.Claims{Issuer: id.issuer, Subject: p.id, Audience: wire.TokenAudience, IssuedAt: iat.Unix(),
		ExpiresAt: iat.Add(ttl).Unix(), ID: hex.EncodeToString(jti), OrgID: p.org, Type: p.typ,
		Role: p.role, PlatformRole: p.platformRole, IssuedAtMs: ms}
	if a := p.agent; a != nil {
		if a.Flags&wire.FlagHasScopes != 0 {
			scopes := append([]string{}, a.Scopes...)
			c.Scopes = &scopes
		}
		intents, exec := a.Flags&wire.FlagIntentsAPI != 0, a.Flags&wire.FlagExecutionIntents != 0
		c.Environment, c.IntentsAPIEnabled, c.ExecutionIntentsEnabled = a.Environment, &intents, &exec
		c.IntentsRequireTEE, c.ExecutionRequireTEE = a.Flags&wire.FlagIntentsRequireTEE != 0, a.Flags&wire.FlagExecutionRequireTEE != 0
	}
	body, err := json.Marshal(c)
	if err != nil {
		return wire.MintTokenResponse{}, fmt.Errorf("%w: encoding claims: %w", wire.ErrInternal, err)
	}
	tok, err := id.jwt.token(ctx, body)
	if err != nil {
		return wire.MintTokenResponse{}, err
	}
	return wire.MintTokenResponse{Token: tok, KID: id.jwt.kid, ExpiresAt: c.ExpiresAt, IssuedAtMs: ms}, nil
}

// checkPassword checks password against an argon2id PHC verifier in
// constant time (internal/passhash bounds its parameters); an empty or
// unparsable verifier never matches.
func checkPassword(ctx context.Context, verifier, password string) bool {
	return passhash.Verify(ctx, verifier, password) == nil
}
