package test

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/client"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/test/stack"
)

// keyVault is a vault holding a private key, an SSH key and an API key
// under env/, and the ids of the secrets by name.
type keyVault struct {
	owner stack.Account
	vault string
	ids   map[string]string
}

// Values of the secrets keyVault writes; none may ever reach an agent with
// the intents API.
const (
	pkValue  = "0x4c0883a69102937d6231471b5dbb6204fe512961708279f2e3e8a5d4b8e3b7a1"
	sshValue = "-----BEGIN OPENSSH PRIVATE KEY-----pk-attack-canary"
	apiValue = "api-token-pk-attack"
)

func newKeyVault(t *testing.T, s *stack.Stack, email string) keyVault {
	t.Helper()
	kv := keyVault{owner: s.SignUp(email), ids: map[string]string{}}
	kv.vault = s.CreateVault(kv.owner.Token, "keys")
	for _, w := range []struct{ path, typ, value string }{
		{"env/WALLET_KEY", "private_key", pkValue}, {"env/DEPLOY_KEY", "ssh_key", sshValue}, {"env/API_TOKEN", "api_key", apiValue},
	} {
		r := s.Do("PUT", "/v1/vaults/"+kv.vault+"/secrets/"+w.path, kv.owner.Token, map[string]any{"type": w.typ, "value": w.value})
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
		kv.ids[w.path] = r.JSON(t)["id"].(string)
	}
	return kv
}

// readerAgent registers an agent that may read everything in kv's vault.
func (kv keyVault) readerAgent(t *testing.T, s *stack.Stack, name string, intents bool) (id, key, token string) {
	t.Helper()
	id, key = registerAgent(t, s, kv.owner.Token, map[string]any{"name": name, "intents_api_enabled": intents})
	createPolicy(t, s, kv.owner.Token, kv.vault, map[string]any{"secret_path_pattern": "**", "principal_type": "agent",
		"principal_id": id, "permissions": []string{"read"}, "effect": "allow"})
	return id, key, agentJWT(t, s, id, key)
}

func requireNoKeyIn(t *testing.T, body []byte) {
	t.Helper()
	require.False(t, bytes.Contains(body, []byte(pkValue)), "the private key leaked")
	require.False(t, bytes.Contains(body, []byte(sshValue)), "the SSH key leaked")
}

// TestAttackPrivateKeyReadByIntentsAgent (issue 12, item 5): an agent with
// the intents API reads no private_key or ssh_key secret, directly, through
// env-vars/resolve or through a share of it to itself; its API key still
// reads, and an agent without the intents API still reads keys.
func TestAttackPrivateKeyReadByIntentsAgent(t *testing.T) {
	s := stack.Start(t)
	kv := newKeyVault(t, s, "pk-attack-owner@example.com")
	signerID, _, signer := kv.readerAgent(t, s, "signer", true)
	readerID, _, reader := kv.readerAgent(t, s, "reader", false)
	secret := func(path string) string { return "/v1/vaults/" + kv.vault + "/secrets/" + path }

	t.Run("direct read", func(t *testing.T) {
		for _, path := range []string{"env/WALLET_KEY", "env/DEPLOY_KEY"} {
			r := s.Do("GET", secret(path), signer, nil)
			requireProblem(t, r, http.StatusForbidden, "private_key_blocked")
			requireNoKeyIn(t, r.Body)
		}
		r := s.Do("GET", secret("env/API_TOKEN"), signer, nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.Equal(t, apiValue, r.JSON(t)["value"])
		r = s.Do("GET", secret("env/WALLET_KEY"), reader, nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.Equal(t, pkValue, r.JSON(t)["value"], "an agent without the intents API still reads keys")
	})

	t.Run("env-vars resolve", func(t *testing.T) {
		r := s.Do("GET", "/v1/vaults/"+kv.vault+"/env-vars/resolve", signer, nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		requireNoKeyIn(t, r.Body)
		m := r.JSON(t)
		require.Equal(t, map[string]any{"API_TOKEN": apiValue}, m["variables"])
		denied := map[string]any{}
		for _, d := range m["denied"].([]any) {
			e := d.(map[string]any)
			denied[e["path"].(string)] = e["reason"]
		}
		require.Equal(t, map[string]any{"env/WALLET_KEY": "private_key_blocked", "env/DEPLOY_KEY": "private_key_blocked"}, denied)
		r = s.Do("GET", "/v1/vaults/"+kv.vault+"/env-vars/resolve", reader, nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.Equal(t, map[string]any{"API_TOKEN": apiValue, "WALLET_KEY": pkValue, "DEPLOY_KEY": sshValue}, r.JSON(t)["variables"])
	})

	t.Run("share to its creator", func(t *testing.T) {
		expires := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		for _, path := range []string{"env/WALLET_KEY", "env/DEPLOY_KEY"} {
			r := s.Do("POST", "/v1/secrets/"+kv.ids[path]+"/share", signer, map[string]any{"recipient_type": "creator", "expires_at": expires})
			requireProblem(t, r, http.StatusForbidden, "private_key_blocked")
		}
		sh := createShare(t, s, signer, kv.ids["env/API_TOKEN"], map[string]any{"recipient_type": "creator"})
		r := openShareAs(t, s, sh["id"].(string), kv.owner.Token, "", "") // the agent's creator opens it
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.Equal(t, apiValue, r.JSON(t)["value"])
	})
	t.Run("share a human addressed to it", func(t *testing.T) {
		sh := createShare(t, s, kv.owner.Token, kv.ids["env/WALLET_KEY"], map[string]any{"recipient_type": "agent", "recipient_id": signerID})
		r := openShareAs(t, s, sh["id"].(string), signer, "", "")
		requireProblem(t, r, http.StatusForbidden, "private_key_blocked")
		requireNoKeyIn(t, r.Body)
		sh = createShare(t, s, kv.owner.Token, kv.ids["env/WALLET_KEY"], map[string]any{"recipient_type": "agent", "recipient_id": readerID})
		r = openShareAs(t, s, sh["id"].(string), reader, "", "")
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.Equal(t, pkValue, r.JSON(t)["value"], "an agent without the intents API opens a key shared to it")
	})
}

// TestAttackPrivateKeyShareBeforeIntents: a share of a private key made by
// an agent before it had the intents API does not open once it has it: the
// enclave decides on the agent's current claims and the type sealed into
// the value.
func TestAttackPrivateKeyShareBeforeIntents(t *testing.T) {
	s := stack.Start(t)
	kv := newKeyVault(t, s, "pk-share-owner@example.com")
	id, _, agent := kv.readerAgent(t, s, "later-signer", false)
	keyShare := createShare(t, s, agent, kv.ids["env/WALLET_KEY"], map[string]any{"recipient_type": "creator", "max_access_count": 5})
	apiShare := createShare(t, s, agent, kv.ids["env/API_TOKEN"], map[string]any{"recipient_type": "creator", "max_access_count": 5})
	r := openShareAs(t, s, keyShare["id"].(string), kv.owner.Token, "", "")
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	require.Equal(t, pkValue, r.JSON(t)["value"], "no intents API yet: the key opens")

	r = s.Do("PATCH", "/v1/agents/"+id, kv.owner.Token, map[string]any{"intents_api_enabled": true})
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	// The creator (a human) opens it; the enclave opens with the agent's
	// current claims.
	r = openShareAs(t, s, keyShare["id"].(string), kv.owner.Token, "", "")
	requireProblem(t, r, http.StatusForbidden, "private_key_blocked")
	requireNoKeyIn(t, r.Body)
	r = openShareAs(t, s, apiShare["id"].(string), kv.owner.Token, "", "")
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	require.Equal(t, apiValue, r.JSON(t)["value"])
}

// TestAttackPrivateKeyRelabelledInDatabase: a PostgreSQL writer relabels a
// private key as an api_key. The proxy believes the row; the enclave reads
// the type sealed into the value and still refuses, through every route.
// Humans still read the secret.
func TestAttackPrivateKeyRelabelledInDatabase(t *testing.T) {
	s := stack.Start(t)
	kv := newKeyVault(t, s, "pk-relabel-owner@example.com")
	_, _, signer := kv.readerAgent(t, s, "signer", true)
	execSQL(t, s, `UPDATE secrets SET type = 'api_key' WHERE id IN ('`+kv.ids["env/WALLET_KEY"]+`', '`+kv.ids["env/DEPLOY_KEY"]+`')`)

	for _, path := range []string{"env/WALLET_KEY", "env/DEPLOY_KEY"} {
		r := s.Do("GET", "/v1/vaults/"+kv.vault+"/secrets/"+path, signer, nil)
		requireProblem(t, r, http.StatusForbidden, "private_key_blocked")
		requireNoKeyIn(t, r.Body)
	}
	r := s.Do("GET", "/v1/vaults/"+kv.vault+"/env-vars/resolve", signer, nil)
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	requireNoKeyIn(t, r.Body)
	require.Equal(t, map[string]any{"API_TOKEN": apiValue}, r.JSON(t)["variables"])
	require.Len(t, r.JSON(t)["denied"], 2)

	// The proxy's own check passes on the relabelled row; the share opens
	// nothing.
	sh := createShare(t, s, signer, kv.ids["env/WALLET_KEY"], map[string]any{"recipient_type": "creator"})
	r = openShareAs(t, s, sh["id"].(string), signer, "", "")
	require.NotEqual(t, http.StatusOK, r.Status, string(r.Body))
	requireNoKeyIn(t, r.Body)

	r = s.Do("GET", "/v1/vaults/"+kv.vault+"/secrets/env/WALLET_KEY", kv.owner.Token, nil)
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	require.Equal(t, pkValue, r.JSON(t)["value"], "the owner still reads it")
}

// relabelBlob rewrites the type a sealed value carries in the clear (blob
// version 2: version, KEK version, type length, type, AEAD part; version 3
// has the intermediate-key generation (4) before the type length) without
// touching its AEAD part.
func relabelBlob(t *testing.T, blob []byte, to string) []byte {
	t.Helper()
	require.Contains(t, []byte{2, 3}, blob[0], "a typed blob")
	off := 5
	if blob[0] == 3 {
		off = 9
	}
	n := int(blob[off])
	out := append([]byte{}, blob[:off]...)
	out = append(out, byte(len(to)))
	out = append(out, to...)
	return append(out, blob[off+1+n:]...)
}

// TestHostileProxyPrivateKeyRelabel: a compromised proxy, speaking the wire
// protocol with a stolen intents agent token, cannot open a private key:
// as stored, relabelled as api_key, or dressed up as a legacy value. The
// API key opens; an owner and an agent without the intents API open the
// key.
func TestHostileProxyPrivateKeyRelabel(t *testing.T) {
	s := stack.Start(t)
	kv := newKeyVault(t, s, "pk-hostile-owner@example.com")
	_, _, signer := kv.readerAgent(t, s, "signer", true)
	_, _, reader := kv.readerAgent(t, s, "reader", false)
	ps := storedPolicySet(t, s, kv.owner.OrgID, kv.vault)
	sess := enclaveSession(t, s)

	open := func(sess *client.Session, token, path string, edit func([]byte) []byte) (wire.Code, []byte) {
		row := readSealed(t, s, kv.owner.OrgID, path)
		ct := row.ct
		if edit != nil {
			ct = edit(ct)
		}
		code, resp := keysCall(t, sess, wire.OpOpen, &wire.OpenRequest{OrgID: kv.owner.OrgID, VaultID: kv.vault, Path: path,
			SecretVersion: row.version, WrappedDEK: row.wrapped, Ciphertext: ct, Token: token, PolicySet: ps.set, PolicyMAC: ps.mac,
			ClientIP: "127.0.0.1"})
		return code, resp
	}
	asAPIKey := func(b []byte) []byte { return relabelBlob(t, b, "api_key") }
	untyped := func(b []byte) []byte { return relabelBlob(t, b, "") }
	legacy := func(b []byte) []byte { c := bytes.Clone(b); c[0] = 1; return c }

	tests := map[string]struct {
		token, path string
		edit        func([]byte) []byte
		want        wire.Code
		value       string
	}{
		"fail intents agent, private key as stored":  {signer, "env/WALLET_KEY", nil, wire.PrivateKeyBlocked, ""},
		"fail intents agent, ssh key as stored":      {signer, "env/DEPLOY_KEY", nil, wire.PrivateKeyBlocked, ""},
		"fail intents agent, key relabelled api_key": {signer, "env/WALLET_KEY", asAPIKey, wire.Integrity, ""},
		"fail intents agent, key relabelled untyped": {signer, "env/WALLET_KEY", untyped, wire.PrivateKeyBlocked, ""},
		"fail intents agent, key as a legacy value":  {signer, "env/WALLET_KEY", legacy, wire.PrivateKeyBlocked, ""},
		"fail owner, key relabelled api_key":         {kv.owner.Token, "env/WALLET_KEY", asAPIKey, wire.Integrity, ""},
		"ok intents agent, api key":                  {signer, "env/API_TOKEN", nil, wire.OK, apiValue},
		"ok agent without intents, private key":      {reader, "env/WALLET_KEY", nil, wire.OK, pkValue},
		"ok owner, ssh key":                          {kv.owner.Token, "env/DEPLOY_KEY", nil, wire.OK, sshValue},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			code, resp := open(sess, tc.token, tc.path, tc.edit)
			require.Equal(t, tc.want, code)
			if tc.want != wire.OK {
				require.Empty(t, resp)
				return
			}
			var out wire.OpenResponse
			require.NoError(t, out.Decode(resp))
			require.Equal(t, tc.value, string(out.Plaintext))
		})
	}

	// The enclave binds only a well-formed type.
	code, _ := keysCall(t, sess, wire.OpSeal, &wire.SealRequest{OrgID: kv.owner.OrgID, VaultID: kv.vault, Path: "env/X", SecretVersion: 1,
		Plaintext: []byte("x"), Token: kv.owner.Token, SecretType: "Private Key"})
	require.Equal(t, wire.BadRequest, code)

	// The relabelled value stored by a database writer is not served
	// either, nor counted as a different secret.
	execSQL(t, s, `UPDATE secret_versions SET ciphertext = overlay(ciphertext placing ('\x07'::bytea || 'api_key'::bytea) from 6 for 12)
		WHERE secret_id = '`+kv.ids["env/WALLET_KEY"]+`'`)
	execSQL(t, s, `UPDATE secrets SET type = 'api_key' WHERE id = '`+kv.ids["env/WALLET_KEY"]+`'`)
	r := s.Do("GET", "/v1/vaults/"+kv.vault+"/secrets/env/WALLET_KEY", signer, nil)
	require.NotEqual(t, http.StatusOK, r.Status, string(r.Body))
	requireNoKeyIn(t, r.Body)
}
