package test

import (
	"context"
	"net/http"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/client"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/test/stack"
)

// sealedIdentity reads a sealed identity record the proxy stored, as a
// compromised proxy host can.
func sealedIdentity(t *testing.T, s *stack.Stack, name string) wire.SealedIdentity {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.DatabaseURL)
	require.NoError(t, err)
	defer conn.Close(ctx)
	var r wire.SealedIdentity
	require.NoError(t, conn.QueryRow(ctx, `SELECT record, mac FROM sealed_identity WHERE name = $1`, name).Scan(&r.Record, &r.MAC))
	return r
}

// callWire sends one request over a raw session and returns its code.
func callWire(t *testing.T, sess *client.Session, op wire.Op, req, resp wire.Message) wire.Code {
	t.Helper()
	body, err := req.Append(nil)
	require.NoError(t, err)
	code, out, err := sess.Call(op, body)
	require.NoError(t, err)
	if code == wire.OK && resp != nil {
		require.NoError(t, resp.Decode(out))
	}
	return code
}

// userRecords are the user and membership records of a in its org.
func userRecords(t *testing.T, s *stack.Stack, a stack.Account) []wire.SealedIdentity {
	return []wire.SealedIdentity{sealedIdentity(t, s, "id/user/"+a.UserID), sealedIdentity(t, s, "id/member/"+a.OrgID+"/"+a.UserID)}
}

// TestHostileProxyIdentity: a compromised proxy host, speaking the wire
// protocol to a live enclave, cannot mint a token without the credential,
// from a forged record or from a superseded one, cannot claim an existing
// organization at signup, cannot change a password without the old one,
// and cannot change a membership with a member's token.
func TestHostileProxyIdentity(t *testing.T) {
	s := stack.Start(t)
	defer func() {
		if t.Failed() {
			t.Log(s.Logs())
		}
	}()
	owner := s.SignUp("hostile-id-owner@example.com")
	sess := enclaveSession(t, s)

	t.Run("fail sign jwt is retired", func(t *testing.T) {
		req := &wire.SignJWTRequest{Claims: []byte(`{"sub":"` + owner.UserID + `","org_id":"` + owner.OrgID + `","role":"owner"}`)}
		require.Equal(t, wire.Forbidden, callWire(t, sess, wire.OpSignJWT, req, nil))
	})

	t.Run("fail mint without the credential", func(t *testing.T) {
		recs := userRecords(t, s, owner)
		for name, req := range map[string]*wire.MintTokenRequest{
			"no credential":  {Records: recs},
			"wrong password": {Credential: wire.CredPassword, Secret: "not the password", Records: recs},
			"as an api key":  {Credential: wire.CredAPIKey, Secret: "ocvk_x", Records: recs},
		} {
			require.Equal(t, wire.Forbidden, callWire(t, sess, wire.OpMintToken, req, nil), name)
		}
		var ok wire.MintTokenResponse
		require.Equal(t, wire.OK, callWire(t, sess, wire.OpMintToken,
			&wire.MintTokenRequest{Credential: wire.CredPassword, Secret: owner.Password, Records: recs}, &ok), "the credential itself mints")
	})

	t.Run("fail mint from a forged record", func(t *testing.T) {
		recs := userRecords(t, s, owner)
		var m wire.IdentityRecord
		require.NoError(t, m.Decode(recs[1].Record))
		m.OrgID = "00000000-0000-7000-8000-000000000000" // another organization
		forged, err := m.Append(nil)
		require.NoError(t, err)
		recs[1].Record = forged
		require.Equal(t, wire.Forbidden, callWire(t, sess, wire.OpMintToken,
			&wire.MintTokenRequest{Credential: wire.CredPassword, Secret: owner.Password, Records: recs}, nil))
	})

	t.Run("fail signup into an existing organization", func(t *testing.T) {
		recs := [][]byte{}
		for _, r := range []wire.IdentityRecord{
			{Kind: wire.IdentityOrg, Version: 1, OrgID: owner.OrgID, UserID: "0190a000-0000-7000-8000-00000000e411"},
			{Kind: wire.IdentityUser, Version: 1, UserID: "0190a000-0000-7000-8000-00000000e411", Email: "evil@example.com", Status: wire.StatusActive},
			{Kind: wire.IdentityMember, Version: 1, OrgID: owner.OrgID, UserID: "0190a000-0000-7000-8000-00000000e411", Role: "owner", Status: wire.StatusActive},
		} {
			b, err := r.Append(nil)
			require.NoError(t, err)
			recs = append(recs, b)
		}
		require.Equal(t, wire.Forbidden, callWire(t, sess, wire.OpSealIdentity, &wire.SealIdentityRequest{Records: recs}, nil))
	})

	t.Run("fail password change without the old password", func(t *testing.T) {
		cur := sealedIdentity(t, s, "id/user/"+owner.UserID)
		var u wire.IdentityRecord
		require.NoError(t, u.Decode(cur.Record))
		u.Version++
		u.PasswordVerifier = "$argon2id$v=19$m=64,t=1,p=1$MDEyMzQ1Njc4OWFiY2RlZg$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
		b, err := u.Append(nil)
		require.NoError(t, err)
		current := []wire.SealedIdentity{cur}
		for name, req := range map[string]*wire.SealIdentityRequest{
			"wrong old password": {OldPassword: "not it", Current: current, Records: [][]byte{b}},
			"the user's token":   {Token: owner.Token, Current: current, Records: [][]byte{b}},
		} {
			require.Equal(t, wire.Forbidden, callWire(t, sess, wire.OpSealIdentity, req, nil), name)
		}
	})

	mem := s.SignUp("hostile-id-member@example.com")
	member := joinAsMember(t, s, mem, owner.OrgID)
	mem.OrgID = owner.OrgID

	t.Run("fail seal a membership change with a member's token", func(t *testing.T) {
		cur := sealedIdentity(t, s, "id/member/"+owner.OrgID+"/"+mem.UserID)
		var m wire.IdentityRecord
		require.NoError(t, m.Decode(cur.Record))
		m.Version++
		m.Role = "owner"
		b, err := m.Append(nil)
		require.NoError(t, err)
		require.Equal(t, wire.Forbidden, callWire(t, sess, wire.OpSealIdentity, &wire.SealIdentityRequest{Token: member, Records: [][]byte{b}}, nil))
		require.Equal(t, wire.Forbidden, callWire(t, sess, wire.OpSealIdentity, &wire.SealIdentityRequest{Records: [][]byte{b}}, nil), "no authority at all")
		r := s.Do("PATCH", "/v1/org/members/"+owner.UserID, member, map[string]string{"role": "member"})
		require.Equal(t, http.StatusForbidden, r.Status, string(r.Body))
	})

	t.Run("fail mint from a superseded record", func(t *testing.T) {
		r := s.Do("PATCH", "/v1/org/members/"+mem.UserID, owner.Token, map[string]string{"role": "admin"})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		adminRecs := userRecords(t, s, mem) // captured while admin
		r = s.Do("PATCH", "/v1/org/members/"+mem.UserID, owner.Token, map[string]string{"role": "member"})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.Equal(t, wire.Forbidden, callWire(t, sess, wire.OpMintToken,
			&wire.MintTokenRequest{Credential: wire.CredPassword, Secret: mem.Password, Records: adminRecs}, nil))
		// Putting the old row back in PostgreSQL does not help either.
		execSQL(t, s, "UPDATE sealed_identity SET record = '\\x"+hexOf(adminRecs[1].Record)+"', mac = '\\x"+hexOf(adminRecs[1].MAC)+
			"' WHERE name = 'id/member/"+owner.OrgID+"/"+mem.UserID+"'")
		r = s.Do("POST", "/v1/auth/token", "", map[string]string{"email": mem.Email, "password": mem.Password})
		require.Equal(t, http.StatusUnauthorized, r.Status, string(r.Body))
	})
}
