package ops

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/policy"
)

// relabelBlob rewrites the type field of a version-2 blob, leaving its AEAD
// part as it is (a proxy or a database writer relabelling a secret).
func relabelBlob(blob []byte, to string) []byte {
	const header = 1 + 4
	n := int(blob[header])
	out := append([]byte{}, blob[:header]...)
	out = append(out, byte(len(to)))
	out = append(out, to...)
	return append(out, blob[header+1+n:]...)
}

func TestOpenRefusesRawKeysToIntentsAgents(t *testing.T) {
	f := newFixture(t)
	f.h.authz.requireToken = true
	owner := f.token(t, claimsFor("o", "user", "owner-o", "owner"))
	var kek wire.CreateKEKResponse
	require.NoError(t, f.call(t, wire.OpCreateKEK, &wire.CreateKEKRequest{Token: owner, OrgID: "o", VaultID: "v"}, &kek))
	set, mac := f.seal(t, "o", "v", 1,
		policy.Policy{ID: "pol-a", Pattern: "p/*", PrincipalType: "agent", PrincipalID: "a", Permissions: []policy.Permission{"read"}, Effect: "allow"},
		policy.Policy{ID: "pol-b", Pattern: "p/*", PrincipalType: "agent", PrincipalID: "b", Permissions: []policy.Permission{"read"}, Effect: "allow"})
	intents := claimsFor("o", "agent", "a", "")
	intents["intents_api_enabled"] = true
	intentsTok := f.token(t, intents)
	plain := claimsFor("o", "agent", "b", "")
	plain["intents_api_enabled"] = false
	plainTok := f.token(t, plain)

	sealed := map[string]wire.SealResponse{}
	for _, typ := range []string{"private_key", "ssh_key", "api_key", ""} {
		var resp wire.SealResponse
		require.NoError(t, f.call(t, wire.OpSeal, &wire.SealRequest{OrgID: "o", VaultID: "v", Path: "p/x" + typ, SecretVersion: 1,
			Plaintext: []byte("value of " + typ), Token: owner, SecretType: typ}, &resp))
		sealed[typ] = resp
	}
	var bad wire.SealResponse
	require.ErrorIs(t, f.call(t, wire.OpSeal, &wire.SealRequest{OrgID: "o", VaultID: "v", Path: "p/x", SecretVersion: 1,
		Plaintext: []byte("x"), Token: owner, SecretType: "Private Key"}, &bad), wire.ErrBadRequest)

	open := func(tok, typ string, blob []byte) error {
		s := sealed[typ]
		if blob == nil {
			blob = s.Ciphertext
		}
		var resp wire.OpenResponse
		err := f.call(t, wire.OpOpen, &wire.OpenRequest{OrgID: "o", VaultID: "v", Path: "p/x" + typ, SecretVersion: 1,
			WrappedDEK: s.WrappedDEK, Ciphertext: blob, Token: tok, PolicySet: set, PolicyMAC: mac}, &resp)
		if err == nil {
			require.Equal(t, "value of "+typ, string(resp.Plaintext))
		}
		return err
	}
	tests := map[string]struct {
		tok, typ string
		blob     []byte
		wantErr  error
	}{
		"ok intents agent api_key":          {tok: intentsTok, typ: "api_key"},
		"ok plain agent private_key":        {tok: plainTok, typ: "private_key"},
		"ok owner ssh_key":                  {tok: owner, typ: "ssh_key"},
		"ok owner untyped":                  {tok: owner, typ: ""},
		"fail intents agent private_key":    {tok: intentsTok, typ: "private_key", wantErr: wire.ErrPrivateKeyBlocked},
		"fail intents agent ssh_key":        {tok: intentsTok, typ: "ssh_key", wantErr: wire.ErrPrivateKeyBlocked},
		"fail intents agent untyped":        {tok: intentsTok, typ: "", wantErr: wire.ErrPrivateKeyBlocked},
		"fail relabelled private_key":       {tok: intentsTok, typ: "private_key", blob: relabelBlob(sealed["private_key"].Ciphertext, "api_key"), wantErr: wire.ErrIntegrity},
		"fail relabelled also for an owner": {tok: owner, typ: "private_key", blob: relabelBlob(sealed["private_key"].Ciphertext, "api_key"), wantErr: wire.ErrIntegrity},
		"fail legacy header for intents":    {tok: intentsTok, typ: "api_key", blob: append([]byte{1}, sealed["api_key"].Ciphertext[1:]...), wantErr: wire.ErrPrivateKeyBlocked},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := open(tc.tok, tc.typ, tc.blob)
			if tc.wantErr == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.wantErr)
			require.Equal(t, wire.CodeOf(tc.wantErr), wire.CodeOf(err))
		})
	}
}
