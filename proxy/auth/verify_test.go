package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/wire"
)

// es256 stands in for the enclave: it signs whatever claims it is sent,
// as OpSignJWT does, and lists its public key.
type es256 struct{ key *ecdsa.PrivateKey }

func newES256(t testing.TB) *es256 {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	return &es256{key: k}
}

func (e *es256) SignJWT(_ context.Context, claims []byte) (string, error) {
	hdr, _ := json.Marshal(map[string]string{"alg": "ES256", "typ": "JWT", "kid": "ocv-jwt-v1"})
	input := base64.RawURLEncoding.EncodeToString(hdr) + "." + base64.RawURLEncoding.EncodeToString(claims)
	d := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, e.key, d[:])
	if err != nil {
		return "", err
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return input + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

func (e *es256) PublicKeys(context.Context) ([]wire.PublicKey, error) {
	pt, err := e.key.PublicKey.Bytes()
	if err != nil {
		return nil, err
	}
	return []wire.PublicKey{{KID: "ocv-jwt-v1", Alg: "ES256", Curve: "P-256", X: pt[1:33], Y: pt[33:]}}, nil
}

type noRevocations struct{}

func (noRevocations) IsTokenRevoked(context.Context, string) (bool, error) { return false, nil }

// directory is a PrincipalSource: "type/id/org/role/platform role" of
// every principal that is there.
type directory struct {
	members map[string]bool
	err     error
}

func (d directory) HasPrincipal(_ context.Context, ptype, id, org, role, platformRole string) (bool, error) {
	return d.members[ptype+"/"+id+"/"+org+"/"+role+"/"+platformRole], d.err
}

// verifyNow is the fixed clock of these tests.
var verifyNow = time.Unix(1_800_000_000, 0)

type verifyFixture struct {
	signer *es256
	v      *Verifier
}

func newVerifyFixture(t testing.TB) *verifyFixture {
	t.Helper()
	s := newES256(t)
	v := NewVerifier(s, noRevocations{}, "https://ocv.example", "https://legacy.ocv.example")
	v.now = func() time.Time { return verifyNow }
	v.Principals = directory{members: map[string]bool{
		"user/u-1/o-1/owner/": true, "user/u-2/o-1/member/": true, "agent/a-1/o-1//": true,
	}}
	return &verifyFixture{signer: s, v: v}
}

// token signs claims (a map, so that claims can be left out or mistyped).
func (f *verifyFixture) token(t testing.TB, claims map[string]any) string {
	t.Helper()
	b, err := json.Marshal(claims)
	require.NoError(t, err)
	tok, err := f.signer.SignJWT(context.Background(), b)
	require.NoError(t, err)
	return tok
}

// userClaims are the claims the minter gives user u-1 of o-1 at
// verifyNow, edited by edit.
func userClaims(edit func(map[string]any)) map[string]any {
	c := map[string]any{"iss": "https://ocv.example", "sub": "u-1", "aud": "ocv", "iat": verifyNow.Unix(),
		"exp": verifyNow.Add(wire.DefaultUserTokenTTL).Unix(), "jti": "j-1", "org_id": "o-1",
		"principal_type": "user", "role": "owner", "iat_ms": verifyNow.UnixMilli()}
	if edit != nil {
		edit(c)
	}
	return c
}

func lifetimeOf(ptype, sub string, d time.Duration) map[string]any {
	return userClaims(func(c map[string]any) {
		c["principal_type"], c["sub"], c["exp"] = ptype, sub, verifyNow.Add(d).Unix()
		if ptype == PrincipalAgent {
			delete(c, "role")
		}
	})
}

// TestVerifyTokenRules: the enclave signs the claims it is sent, so a
// compromised proxy host can have any claims signed; the verifier refuses
// those no honest minter makes.
func TestVerifyTokenRules(t *testing.T) {
	userBound := wire.DefaultUserTokenTTL + wire.TokenClockSkew
	agentBound := wire.DefaultAgentTokenTTL + wire.TokenClockSkew
	tests := map[string]struct {
		claims  map[string]any
		wantErr error
	}{
		"ok as minted":                  {userClaims(nil), nil},
		"ok user exactly at the bound":  {lifetimeOf(PrincipalUser, "u-1", userBound), nil},
		"ok agent exactly at the bound": {lifetimeOf(PrincipalAgent, "a-1", agentBound), nil},
		"ok legacy issuer":              {userClaims(func(c map[string]any) { c["iss"] = "https://legacy.ocv.example" }), nil},
		"ok without iat_ms":             {userClaims(func(c map[string]any) { delete(c, "iat_ms") }), nil},
		// Issue 11: an owner token signed for ten years.
		"fail ten-year lifetime":          {lifetimeOf(PrincipalUser, "u-1", 10*365*24*time.Hour), ErrInvalidToken},
		"fail ten-year agent lifetime":    {lifetimeOf(PrincipalAgent, "a-1", 10*365*24*time.Hour), ErrInvalidToken},
		"fail user just above the bound":  {lifetimeOf(PrincipalUser, "u-1", userBound+time.Second), ErrInvalidToken},
		"fail agent just above the bound": {lifetimeOf(PrincipalAgent, "a-1", agentBound+time.Second), ErrInvalidToken},
		// A user's token may not live as long as an agent's.
		"fail user with an agent lifetime": {lifetimeOf(PrincipalUser, "u-1", wire.DefaultAgentTokenTTL), ErrInvalidToken},
		"fail missing iat":                 {userClaims(func(c map[string]any) { delete(c, "iat"); delete(c, "iat_ms") }), ErrInvalidToken},
		"fail iat zero":                    {userClaims(func(c map[string]any) { c["iat"] = 0; delete(c, "iat_ms") }), ErrInvalidToken},
		// Dated years ahead, a short lifetime would last years.
		"fail iat ten years ahead": {userClaims(func(c map[string]any) {
			at := verifyNow.AddDate(10, 0, 0)
			c["iat"], c["exp"], c["iat_ms"] = at.Unix(), at.Add(time.Minute).Unix(), at.UnixMilli()
		}), ErrInvalidToken},
		// iat_ms after every cut-off, iat within the lifetime bound.
		"fail iat_ms ahead of iat": {userClaims(func(c map[string]any) { c["iat_ms"] = verifyNow.AddDate(10, 0, 0).UnixMilli() }), ErrInvalidToken},
		"fail iat_ms behind iat":   {userClaims(func(c map[string]any) { c["iat_ms"] = verifyNow.UnixMilli() - 1 }), ErrInvalidToken},
		"fail wrong iss":           {userClaims(func(c map[string]any) { c["iss"] = "https://evil.example" }), ErrInvalidToken},
		"fail iss with a slash":    {userClaims(func(c map[string]any) { c["iss"] = "https://ocv.example/" }), ErrInvalidToken},
		"fail no iss":              {userClaims(func(c map[string]any) { delete(c, "iss") }), ErrInvalidToken},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newVerifyFixture(t)
			_, err := f.v.Verify(context.Background(), f.token(t, tc.claims))
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
}

// TestVerifyConfiguredLifetimes: the bound is the configured lifetime.
func TestVerifyConfiguredLifetimes(t *testing.T) {
	f := newVerifyFixture(t)
	f.v.Lifetimes = wire.TokenLifetimes{User: 5 * time.Minute, Agent: time.Hour}
	_, err := f.v.Verify(context.Background(), f.token(t, lifetimeOf(PrincipalUser, "u-1", 6*time.Minute)))
	require.NoError(t, err)
	_, err = f.v.Verify(context.Background(), f.token(t, lifetimeOf(PrincipalUser, "u-1", 6*time.Minute+time.Second)))
	require.ErrorIs(t, err, ErrInvalidToken)
	f.v.Lifetimes = wire.TokenLifetimes{}
	_, err = f.v.Verify(context.Background(), f.token(t, userClaims(func(c map[string]any) { c["jti"] = "j-2" })))
	require.ErrorIs(t, err, ErrInvalidToken, "no configured lifetime: fail closed")
}

// TestVerifySubject: a correctly signed token of a principal that is not,
// or no longer, there is refused.
func TestVerifySubject(t *testing.T) {
	boom := errors.New("database down")
	tests := map[string]struct {
		claims  map[string]any
		edit    func(v *Verifier)
		wantErr error
	}{
		"ok member": {userClaims(nil), nil, nil},
		"ok agent":  {lifetimeOf(PrincipalAgent, "a-1", time.Hour), nil, nil},
		// No way to check the subject: fail closed.
		"fail no principal source": {userClaims(nil), func(v *Verifier) { v.Principals = nil }, ErrInvalidToken},
		// A subject that never existed (issue 11's minted owner token).
		"fail unknown user": {userClaims(func(c map[string]any) { c["sub"] = "u-ghost" }), nil, ErrInvalidToken},
		// Not a member of the organization the token names.
		"fail other org": {userClaims(func(c map[string]any) { c["org_id"] = "o-2" }), nil, ErrInvalidToken},
		// A member's token claiming the owner role, or a platform role.
		"fail claimed role": {userClaims(func(c map[string]any) { c["sub"] = "u-2" }), nil, ErrInvalidToken},
		"fail claimed platform role": {userClaims(func(c map[string]any) { c["platform_role"] = "super_admin" }),
			nil, ErrInvalidToken},
		"fail unknown agent": {lifetimeOf(PrincipalAgent, "a-ghost", time.Hour), nil, ErrInvalidToken},
		"fail user as agent": {lifetimeOf(PrincipalAgent, "u-1", time.Hour), nil, ErrInvalidToken},
		// A look-up failure is an outage (500), not a verdict on the token.
		"fail lookup error": {userClaims(nil), func(v *Verifier) { v.Principals = directory{err: boom} }, boom},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newVerifyFixture(t)
			if tc.edit != nil {
				tc.edit(f.v)
			}
			_, err := f.v.Verify(context.Background(), f.token(t, tc.claims))
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
}

// TestVerifyDeletedUserCutOff: once a token was verified (and cached), a
// deletion reaches the verifier as a cut-off, with no database look-up.
func TestVerifyDeletedUserCutOff(t *testing.T) {
	f := newVerifyFixture(t)
	user := f.token(t, userClaims(nil))
	agent := f.token(t, lifetimeOf(PrincipalAgent, "a-1", time.Hour))
	for _, tok := range []string{user, agent} {
		_, err := f.v.Verify(context.Background(), tok)
		require.NoError(t, err)
	}
	f.v.Principals = directory{err: errors.New("not asked again")}
	_, err := f.v.Verify(context.Background(), user)
	require.NoError(t, err, "served from the cache")

	f.v.Users.Set("u-1", AllOrgs, verifyNow.Add(time.Second)) // DeleteUser's cut-off
	_, err = f.v.Verify(context.Background(), user)
	require.ErrorIs(t, err, ErrInvalidToken)
	f.v.Agents.Set("a-1", verifyNow.Add(time.Second)) // DeactivateAgent's cut-off
	_, err = f.v.Verify(context.Background(), agent)
	require.ErrorIs(t, err, ErrInvalidToken)
}
