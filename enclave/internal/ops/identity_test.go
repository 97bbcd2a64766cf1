package ops

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/argon2"

	"github.com/opencustody/ocv/enclave/wire"
)

// phc is a cheap argon2id verifier of password, for tests.
func phc(password string) string {
	salt := []byte("0123456789abcdef")
	key := argon2.IDKey([]byte(password), salt, 1, 64, 1, 32)
	return fmt.Sprintf("$argon2id$v=%d$m=64,t=1,p=1$%s$%s", argon2.Version,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key))
}

// stored is what a proxy keeps: the sealed records by floor name.
type stored map[string]wire.SealedIdentity

func (f *fixture) sealIdentity(t testing.TB, st stored, req wire.SealIdentityRequest, recs ...*wire.IdentityRecord) error {
	t.Helper()
	for _, r := range recs {
		b, err := r.Append(nil)
		require.NoError(t, err)
		req.Records = append(req.Records, b)
	}
	var resp wire.SealIdentityResponse
	if err := f.call(t, wire.OpSealIdentity, &req, &resp); err != nil {
		return err
	}
	for i, r := range recs {
		st[r.FloorName()] = wire.SealedIdentity{Record: req.Records[i], MAC: resp.MACs[i]}
	}
	return nil
}

func (f *fixture) signup(t testing.TB, st stored, org, user, password string) {
	t.Helper()
	require.NoError(t, f.sealIdentity(t, st, wire.SealIdentityRequest{},
		&wire.IdentityRecord{Kind: wire.IdentityOrg, Version: 1, OrgID: org, UserID: user},
		&wire.IdentityRecord{Kind: wire.IdentityUser, Version: 1, UserID: user, Email: user + "@example.com", PasswordVerifier: phc(password), Status: wire.StatusActive},
		&wire.IdentityRecord{Kind: wire.IdentityMember, Version: 1, OrgID: org, UserID: user, Role: "owner", Status: wire.StatusActive}))
}

func (f *fixture) mintWith(t testing.TB, req wire.MintTokenRequest) (wire.Claims, error) {
	t.Helper()
	var resp wire.MintTokenResponse
	if err := f.call(t, wire.OpMintToken, &req, &resp); err != nil {
		return wire.Claims{}, err
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.Split(resp.Token, ".")[1])
	require.NoError(t, err)
	var c wire.Claims
	require.NoError(t, json.Unmarshal(payload, &c))
	return c, nil
}

func userRecs(st stored, org, user string) []wire.SealedIdentity {
	return []wire.SealedIdentity{st["id/user/"+user], st["id/member/"+org+"/"+user]}
}

func TestMintTokenFromSealedRecords(t *testing.T) {
	f := newFixture(t)
	st := stored{}
	f.signup(t, st, "o1", "u1", "correct horse")
	c, err := f.mintWith(t, wire.MintTokenRequest{Credential: wire.CredPassword, Secret: "correct horse", Records: userRecs(st, "o1", "u1")})
	require.NoError(t, err)
	require.Equal(t, "u1", c.Subject)
	require.Equal(t, "o1", c.OrgID)
	require.Equal(t, "owner", c.Role)
	require.Equal(t, "i", c.Issuer)
	require.Equal(t, int64(wire.DefaultUserTokenTTL.Seconds()), c.ExpiresAt-c.IssuedAt)

	forged := userRecs(st, "o1", "u1")
	var m wire.IdentityRecord
	require.NoError(t, m.Decode(forged[1].Record))
	m.OrgID = "o2"
	forged[1].Record, err = m.Append(nil)
	require.NoError(t, err)

	tests := map[string]wire.MintTokenRequest{
		"fail no credential":    {Records: userRecs(st, "o1", "u1")},
		"fail wrong password":   {Credential: wire.CredPassword, Secret: "wrong", Records: userRecs(st, "o1", "u1")},
		"fail no records":       {Credential: wire.CredPassword, Secret: "correct horse"},
		"fail forged record":    {Credential: wire.CredPassword, Secret: "correct horse", Records: forged},
		"fail user record only": {Credential: wire.CredPassword, Secret: "correct horse", Records: userRecs(st, "o1", "u1")[:1]},
	}
	for name, req := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := f.mintWith(t, req)
			require.ErrorIs(t, err, wire.ErrForbidden)
		})
	}
}

func TestSealIdentityAuthority(t *testing.T) {
	f := newFixture(t)
	st := stored{}
	f.signup(t, st, "o1", "owner", "pw-owner-1")
	owner := f.token(t, claimsFor("o1", "user", "owner", "owner"))
	member := f.token(t, claimsFor("o1", "user", "m1", "member"))
	other := f.token(t, claimsFor("o2", "user", "x", "owner"))
	rec := func(role string, v uint64) *wire.IdentityRecord {
		return &wire.IdentityRecord{Kind: wire.IdentityMember, Version: v, OrgID: "o1", UserID: "m1", Role: role, Status: wire.StatusActive}
	}
	// A second signup of the same organization is refused.
	err := f.sealIdentity(t, st, wire.SealIdentityRequest{},
		&wire.IdentityRecord{Kind: wire.IdentityOrg, Version: 1, OrgID: "o1", UserID: "evil"},
		&wire.IdentityRecord{Kind: wire.IdentityUser, Version: 1, UserID: "evil", Email: "e@example.com", Status: wire.StatusActive},
		&wire.IdentityRecord{Kind: wire.IdentityMember, Version: 1, OrgID: "o1", UserID: "evil", Role: "owner", Status: wire.StatusActive})
	require.ErrorIs(t, err, wire.ErrForbidden)

	require.ErrorIs(t, f.sealIdentity(t, st, wire.SealIdentityRequest{}, rec("member", 1)), wire.ErrForbidden, "no authority")
	require.ErrorIs(t, f.sealIdentity(t, st, wire.SealIdentityRequest{Token: member}, rec("admin", 1)), wire.ErrForbidden, "a member's token")
	require.ErrorIs(t, f.sealIdentity(t, st, wire.SealIdentityRequest{Token: other}, rec("admin", 1)), wire.ErrForbidden, "another org's owner")
	require.NoError(t, f.sealIdentity(t, st, wire.SealIdentityRequest{Token: owner}, rec("admin", 1)))
	require.ErrorIs(t, f.sealIdentity(t, st, wire.SealIdentityRequest{Token: owner}, rec("member", 1)), wire.ErrConflict, "version must follow")
	old := st["id/member/o1/m1"]
	require.NoError(t, f.sealIdentity(t, st, wire.SealIdentityRequest{Token: owner}, rec("member", 2)))

	// The superseded (admin) membership no longer mints.
	require.NoError(t, f.sealIdentity(t, st, wire.SealIdentityRequest{Token: owner},
		&wire.IdentityRecord{Kind: wire.IdentityUser, Version: 1, UserID: "m1", Email: "m1@example.com", PasswordVerifier: phc("pw-m1"), Status: wire.StatusActive}))
	_, err = f.mintWith(t, wire.MintTokenRequest{Credential: wire.CredPassword, Secret: "pw-m1", Records: []wire.SealedIdentity{st["id/user/m1"], old}})
	require.ErrorIs(t, err, wire.ErrForbidden)
	c, err := f.mintWith(t, wire.MintTokenRequest{Credential: wire.CredPassword, Secret: "pw-m1", Records: userRecs(st, "o1", "m1")})
	require.NoError(t, err)
	require.Equal(t, "member", c.Role)
}

func TestPasswordChangeNeedsOldPassword(t *testing.T) {
	f := newFixture(t)
	st := stored{}
	f.signup(t, st, "o1", "u1", "old-password")
	var u wire.IdentityRecord
	require.NoError(t, u.Decode(st["id/user/u1"].Record))
	next := u
	next.Version, next.PasswordVerifier = 2, phc("new-password")
	cur := []wire.SealedIdentity{st["id/user/u1"]}
	token := f.token(t, claimsFor("o1", "user", "u1", "owner"))
	require.ErrorIs(t, f.sealIdentity(t, st, wire.SealIdentityRequest{OldPassword: "wrong", Current: cur}, &next), wire.ErrForbidden)
	require.ErrorIs(t, f.sealIdentity(t, st, wire.SealIdentityRequest{Token: token, Current: cur}, &next), wire.ErrForbidden, "a token is not enough")
	require.NoError(t, f.sealIdentity(t, st, wire.SealIdentityRequest{OldPassword: "old-password", Current: cur}, &next))
	cut, err := f.h.floors.Load(context.Background(), "cutoff/-/u1")
	require.NoError(t, err)
	require.NotZero(t, cut.NotBefore)
	_, err = f.mintWith(t, wire.MintTokenRequest{Credential: wire.CredPassword, Secret: "old-password", Records: userRecs(st, "o1", "u1")})
	require.ErrorIs(t, err, wire.ErrForbidden)
	c, err := f.mintWith(t, wire.MintTokenRequest{Credential: wire.CredPassword, Secret: "new-password", Records: userRecs(st, "o1", "u1")})
	require.NoError(t, err)
	require.GreaterOrEqual(t, c.IssuedAtMs, cut.NotBefore)
}

func TestRefreshRotation(t *testing.T) {
	f := newFixture(t)
	st := stored{}
	f.signup(t, st, "o1", "u1", "pw-u1-long")
	refresh := func(secret string, v uint64) *wire.IdentityRecord {
		return &wire.IdentityRecord{Kind: wire.IdentityRefresh, Version: v, OrgID: "o1", UserID: "u1", ID: "fam",
			Verifiers: [][32]byte{sha256.Sum256([]byte(secret))}, ExpiresMs: f.h.idn.now().Add(3600e9).UnixMilli()}
	}
	mint := func(cred uint8, secret string, recs []wire.SealedIdentity, next *wire.IdentityRecord) error {
		b, err := next.Append(nil)
		require.NoError(t, err)
		var resp wire.MintTokenResponse
		if err := f.call(t, wire.OpMintToken, &wire.MintTokenRequest{Credential: cred, Secret: secret, Records: recs, NextRefresh: b}, &resp); err != nil {
			return err
		}
		st[next.FloorName()] = wire.SealedIdentity{Record: b, MAC: resp.RefreshMAC}
		return nil
	}
	require.NoError(t, mint(wire.CredPassword, "pw-u1-long", userRecs(st, "o1", "u1"), refresh("r1", 1)))
	first := append(userRecs(st, "o1", "u1"), st["id/refresh/fam"])
	require.NoError(t, mint(wire.CredRefresh, "r1", first, refresh("r2", 2)))
	// The spent token and its superseded record mint nothing.
	require.ErrorIs(t, mint(wire.CredRefresh, "r1", first, refresh("r3", 3)), wire.ErrForbidden)
	second := append(userRecs(st, "o1", "u1"), st["id/refresh/fam"])
	require.ErrorIs(t, mint(wire.CredRefresh, "r1", second, refresh("r3", 3)), wire.ErrForbidden)
	require.NoError(t, mint(wire.CredRefresh, "r2", second, refresh("r3", 3)))
}

func TestAgentTokenFromRecord(t *testing.T) {
	f := newFixture(t)
	st := stored{}
	owner := f.token(t, claimsFor("o1", "user", "owner", "owner"))
	key := "ocv_agent_key"
	a := &wire.IdentityRecord{Kind: wire.IdentityAgent, Version: 1, OrgID: "o1", ID: "a1", Status: wire.StatusActive,
		Environment: "prod", Flags: wire.FlagHasScopes | wire.FlagIntentsAPI, Scopes: []string{"prod/*"},
		Verifiers: [][32]byte{sha256.Sum256([]byte(key))}}
	member := f.token(t, claimsFor("o1", "user", "m", "member"))
	require.ErrorIs(t, f.sealIdentity(t, st, wire.SealIdentityRequest{Token: member}, a), wire.ErrForbidden)
	require.NoError(t, f.sealIdentity(t, st, wire.SealIdentityRequest{Token: owner}, a))
	recs := []wire.SealedIdentity{st["id/agent/o1/a1"]}
	c, err := f.mintWith(t, wire.MintTokenRequest{Credential: wire.CredAgentKey, Secret: key, Records: recs})
	require.NoError(t, err)
	require.Equal(t, "agent", c.Type)
	require.Equal(t, []string{"prod/*"}, *c.Scopes)
	require.True(t, *c.IntentsAPIEnabled)
	require.False(t, *c.ExecutionIntentsEnabled)
	require.Equal(t, int64(wire.DefaultAgentTokenTTL.Seconds()), c.ExpiresAt-c.IssuedAt)
	_, err = f.mintWith(t, wire.MintTokenRequest{Credential: wire.CredAgentKey, Secret: "ocv_other", Records: recs})
	require.ErrorIs(t, err, wire.ErrForbidden)

	// An expired key mints nothing.
	a.Version, a.ExpiresMs = 2, f.h.idn.now().Add(-1e9).UnixMilli()
	require.NoError(t, f.sealIdentity(t, st, wire.SealIdentityRequest{Token: owner}, a))
	_, err = f.mintWith(t, wire.MintTokenRequest{Credential: wire.CredAgentKey, Secret: key, Records: []wire.SealedIdentity{st["id/agent/o1/a1"]}})
	require.ErrorIs(t, err, wire.ErrForbidden)
}
