package wire

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func sampleRecords() map[string]IdentityRecord {
	v := [32]byte{7}
	return map[string]IdentityRecord{
		"user":    {Kind: IdentityUser, Version: 1, UserID: "u1", Email: "a@example.com", PasswordVerifier: "$argon2id$x", Status: StatusActive},
		"admin":   {Kind: IdentityUser, Version: 3, UserID: "u1", Email: "a@example.com", Role: "super_admin", Status: StatusActive},
		"member":  {Kind: IdentityMember, Version: 2, OrgID: "o1", UserID: "u1", Role: "owner", Status: StatusActive},
		"agent":   {Kind: IdentityAgent, Version: 5, OrgID: "o1", ID: "a1", Status: StatusDisabled, Environment: "prod", Flags: FlagHasScopes | FlagIntentsAPI, Scopes: []string{"prod/*", ""}, Verifiers: [][32]byte{v, {}}},
		"agent0":  {Kind: IdentityAgent, Version: 1, OrgID: "o1", ID: "a1", Status: StatusActive},
		"api key": {Kind: IdentityAPIKey, Version: 1, OrgID: "o1", UserID: "u1", ID: "k1", Verifiers: [][32]byte{v}, ExpiresMs: 99},
		"refresh": {Kind: IdentityRefresh, Version: 9, OrgID: "o1", UserID: "u1", ID: "f1", Verifiers: [][32]byte{v}, ExpiresMs: 1},
		"org":     {Kind: IdentityOrg, Version: 1, OrgID: "o1", UserID: "u1"},
		"share":   {Kind: IdentityShare, Version: 1, OrgID: "o1", UserID: "a1", ID: "s1", Verifiers: [][32]byte{v}, ExpiresMs: 5},
	}
}

func TestIdentityRecordRoundTrip(t *testing.T) {
	for name, r := range sampleRecords() {
		t.Run(name, func(t *testing.T) {
			b, err := r.Append(nil)
			require.NoError(t, err)
			var got IdentityRecord
			require.NoError(t, got.Decode(b))
			again, err := got.Append(nil)
			require.NoError(t, err)
			require.Equal(t, b, again)
			require.Equal(t, r.FloorName(), got.FloorName())
			require.True(t, strings.HasPrefix(got.FloorName(), "id/"))
		})
	}
}

func TestIdentityRecordRefused(t *testing.T) {
	tests := map[string]func(r *IdentityRecord){
		"fail version 0":             func(r *IdentityRecord) { r.Version = 0 },
		"fail unknown kind":          func(r *IdentityRecord) { r.Kind = 99 },
		"fail slash in id":           func(r *IdentityRecord) { r.OrgID = "o/../x" },
		"fail empty user":            func(r *IdentityRecord) { r.UserID = "" },
		"fail field of another kind": func(r *IdentityRecord) { r.Email = "x@example.com" },
		"fail verifier on member":    func(r *IdentityRecord) { r.Verifiers = [][32]byte{{}} },
		"fail bad status":            func(r *IdentityRecord) { r.Status = "weird" },
		"fail scopes on member":      func(r *IdentityRecord) { r.Scopes = []string{"x"} },
		"fail long role":             func(r *IdentityRecord) { r.Role = strings.Repeat("r", MaxRoleLen+1) },
	}
	for name, edit := range tests {
		t.Run(name, func(t *testing.T) {
			r := sampleRecords()["member"]
			edit(&r)
			_, err := r.Append(nil)
			require.ErrorIs(t, err, ErrBadRequest)
		})
	}
	// Trailing bytes and a wrong tag do not decode.
	r := sampleRecords()["member"]
	b, err := r.Append(nil)
	require.NoError(t, err)
	var got IdentityRecord
	require.ErrorIs(t, got.Decode(append(bytes.Clone(b), 0)), ErrBadRequest)
	bad := bytes.Clone(b)
	bad[0] = 'x'
	require.ErrorIs(t, got.Decode(bad), ErrBadRequest)
	require.ErrorIs(t, got.Decode(b[:len(b)-1]), ErrBadRequest)
}

// TestIdentityMessagesBounds: a seal request carries a bounded number of
// records (the round trip of every identity message is TestMessageRoundTrip).
func TestIdentityMessagesBounds(t *testing.T) {
	_, err := (&SealIdentityRequest{Records: make([][]byte, MaxIdentityRecords+1)}).Append(nil)
	require.ErrorIs(t, err, ErrBadRequest)
}

func identityMessages(rec, mac []byte) map[string]struct{ in, out Message } {
	sealed := []SealedIdentity{{Record: rec, MAC: mac}, {Record: rec, MAC: mac}}
	return map[string]struct{ in, out Message }{
		"mint":         {&MintTokenRequest{Credential: CredPassword, Secret: "pw", Records: sealed, NextRefresh: rec, NotBeforeMs: 77}, &MintTokenRequest{}},
		"mint empty":   {&MintTokenRequest{}, &MintTokenRequest{}},
		"mint reply":   {&MintTokenResponse{Token: "a.b.c", KID: "k", ExpiresAt: 5, IssuedAtMs: 4, RefreshMAC: mac}, &MintTokenResponse{}},
		"seal":         {&SealIdentityRequest{Token: "t", OldPassword: "o", Current: sealed, Records: [][]byte{rec, rec}}, &SealIdentityRequest{}},
		"seal reply":   {&SealIdentityResponse{MACs: [][]byte{mac, mac}}, &SealIdentityResponse{}},
		"seal nothing": {&SealIdentityResponse{}, &SealIdentityResponse{}},
	}
}
