package test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

// TestCLISharesAndWebhooks drives ocv share and ocv webhook against a stack.
func TestCLISharesAndWebhooks(t *testing.T) {
	s := stack.Start(t)
	me := s.SignUp("cli-share@example.com")
	c := newCLI(t, s)
	const value = "cli-share-value-Qw8e"
	const passphrase = "open sesame 42"
	c.ok(t, me.Password+"\n", "login", "--email", me.Email, "--password-stdin")
	vault := s.CreateVault(me.Token, "cli-share-vault")
	put := s.Do("PUT", "/v1/vaults/"+vault+"/secrets/app/token", me.Token, map[string]string{"type": "password", "value": value})
	require.Equal(t, http.StatusCreated, put.Status, string(put.Body))
	secretID := put.JSON(t)["id"].(string)

	t.Run("share create, list, open, revoke", func(t *testing.T) {
		var sh map[string]any
		out := c.ok(t, passphrase+"\n", "--json", "share", "create", "--vault", "cli-share-vault", "--path", "app/token",
			"--max-access", "1", "--passphrase-stdin", "--expires-in", "2h")
		require.NoError(t, json.Unmarshal([]byte(out), &sh))
		id := sh["id"].(string)
		require.Equal(t, secretID, sh["secret_id"])
		require.Equal(t, true, sh["has_passphrase"])
		require.NotContains(t, out, passphrase)
		require.Contains(t, c.ok(t, "", "share", "list"), id)
		var list map[string][]map[string]any
		require.NoError(t, json.Unmarshal([]byte(c.ok(t, "", "--json", "share", "list")), &list))
		require.Len(t, list["items"], 1)

		r := c.run(t, "", nil, "share", "open", id)
		require.Equal(t, 1, r.code, "no passphrase: refused")
		require.Contains(t, r.stderr, "HTTP 403")
		r = c.run(t, passphrase+"\n", nil, "share", "open", sh["url"].(string), "--passphrase-stdin")
		require.Equal(t, 0, r.code, r.stderr)
		require.Equal(t, value, r.stdout, "the value goes out exactly")
		r = c.run(t, passphrase+"\n", nil, "share", "open", id, "--passphrase-stdin")
		require.Equal(t, 1, r.code, "a single-use share opens once")
		require.Contains(t, r.stderr, "HTTP 410")

		other := c.ok(t, "", "--json", "share", "create", secretID)
		require.NoError(t, json.Unmarshal([]byte(other), &sh))
		require.Contains(t, c.ok(t, "", "share", "revoke", sh["id"].(string)), "Revoked share")
		require.NotEqual(t, 0, c.run(t, "", nil, "share", "open", sh["id"].(string)).code)

		require.Equal(t, 2, c.run(t, "", nil, "share", "create").code, "a secret is required")
		require.Equal(t, 2, c.run(t, "", nil, "share", "open", "not-an-id").code)
	})

	t.Run("webhook create, list, get, update, delete", func(t *testing.T) {
		var wh map[string]any
		out := c.ok(t, "", "--json", "webhook", "create", "https://hooks.example.com/in?token=abc", "--event", "policy.created",
			"--description", "from the CLI")
		require.NoError(t, json.Unmarshal([]byte(out), &wh))
		id := wh["id"].(string)
		require.Regexp(t, `^whsec_[0-9a-f]{64}$`, wh["secret"])
		table := c.ok(t, "", "webhook", "list")
		require.Contains(t, table, id)
		require.NotContains(t, table, "token=abc", "tables hide the destination's query")
		require.Contains(t, c.ok(t, "", "--json", "webhook", "list"), id)
		got := c.ok(t, "", "webhook", "get", id)
		require.Contains(t, got, "policy.created")
		require.NotContains(t, got, wh["secret"].(string), "the secret is shown only at creation")

		out = c.ok(t, "", "--json", "webhook", "update", id, "--active=false", "--description", "paused")
		require.NoError(t, json.Unmarshal([]byte(out), &wh))
		require.Equal(t, false, wh["is_active"])
		require.Equal(t, "paused", wh["description"])
		r := c.run(t, "", nil, "webhook", "update", id, "--endpoint", "http://127.0.0.1/x")
		require.Equal(t, 1, r.code)
		require.Contains(t, r.stderr, "invalid_url")
		require.Equal(t, 2, c.run(t, "", nil, "webhook", "update", id).code, "nothing to update")
		require.Equal(t, 2, c.run(t, "", nil, "webhook", "create", "https://hooks.example.com/").code, "an event is required")

		require.Contains(t, c.ok(t, "", "webhook", "delete", id), "Deleted webhook")
		r = c.run(t, "", nil, "webhook", "get", id)
		require.Equal(t, 1, r.code)
		require.Contains(t, r.stderr, "HTTP 404")
	})

	for _, o := range c.outputs {
		require.False(t, strings.Contains(o, passphrase), "the passphrase never reaches the CLI's output")
	}
}
