package test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

// TestBinarySecretValues: a value that is not UTF-8 text is written as
// base64 (`encoding: base64`), sealed as its bytes and read back exactly,
// through the API, a share link and the CLI; text values are unchanged and
// say `encoding: utf8`; a value that does not decode is 400 before
// anything is sealed.
func TestBinarySecretValues(t *testing.T) {
	s := stack.Start(t)
	s.WaitAttested()
	owner := s.SignUp("binary@example.com")
	vault := s.CreateVault(owner.Token, "bin")
	url := func(path string) string { return "/v1/vaults/" + vault + "/secrets/" + path }
	// NUL, 0xff, a bad continuation, a lone surrogate (CESU), an overlong
	// slash, a truncated sequence at the end: every way JSON text would alter.
	raw := []byte{0x00, 'k', 0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0xc0, 0xaf, '\n', 0x00, 0xe2, 0x82}
	for i := range 256 {
		raw = append(raw, byte(i))
	}
	b64 := base64.StdEncoding.EncodeToString(raw)

	t.Run("fail not base64", func(t *testing.T) {
		for name, body := range map[string]map[string]any{
			"garbage":       {"type": "generic", "value": "not base64!", "encoding": "base64"},
			"unpadded":      {"type": "generic", "value": "AAE", "encoding": "base64"},
			"linebreak":     {"type": "generic", "value": b64[:8] + "\n" + b64[8:], "encoding": "base64"},
			"otherencoding": {"type": "generic", "value": "00ff", "encoding": "hex"},
		} {
			t.Run(name, func(t *testing.T) {
				r := s.Do("PUT", url("bad/"+name), owner.Token, body)
				requireProblem(t, r, http.StatusBadRequest, "invalid_request")
				require.Contains(t, r.JSON(t)["detail"], "encoding")
			})
		}
		r := s.Do("GET", url("bad/garbage"), owner.Token, nil)
		requireProblem(t, r, http.StatusNotFound, "not_found")
	})

	r := s.Do("PUT", url("keys/blob"), owner.Token, map[string]any{"type": "generic", "value": b64, "encoding": "base64"})
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	secretID := r.JSON(t)["id"].(string)
	require.NotContains(t, r.JSON(t), "value")

	t.Run("read back exactly", func(t *testing.T) {
		for _, q := range []string{"", "?encoding=base64", "?encoding=auto"} {
			got := s.Do("GET", url("keys/blob")+q, owner.Token, nil)
			require.Equal(t, http.StatusOK, got.Status, string(got.Body))
			m := got.JSON(t)
			require.Equal(t, "base64", m["encoding"])
			dec, err := base64.StdEncoding.DecodeString(m["value"].(string))
			require.NoError(t, err)
			require.Equal(t, raw, dec)
		}
		requireProblem(t, s.Do("GET", url("keys/blob")+"?encoding=hex", owner.Token, nil), http.StatusBadRequest, "invalid_request")
	})

	t.Run("text values unchanged", func(t *testing.T) {
		r := s.Do("PUT", url("text/pw"), owner.Token, map[string]any{"type": "password", "value": "héllo\x00wörld"})
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
		m := s.Do("GET", url("text/pw"), owner.Token, nil).JSON(t)
		require.Equal(t, "héllo\x00wörld", m["value"])
		require.Equal(t, "utf8", m["encoding"])
		m = s.Do("GET", url("text/pw")+"?encoding=base64", owner.Token, nil).JSON(t)
		require.Equal(t, base64.StdEncoding.EncodeToString([]byte("héllo\x00wörld")), m["value"])
		require.Equal(t, "base64", m["encoding"])
	})

	t.Run("share link", func(t *testing.T) {
		sh := createShare(t, s, owner.Token, secretID, map[string]any{"recipient_type": "anyone_with_link"})
		got := openShare(t, s, sh["id"].(string), "", "")
		require.Equal(t, http.StatusOK, got.Status, string(got.Body))
		m := got.JSON(t)
		require.Equal(t, "base64", m["encoding"])
		dec, err := base64.StdEncoding.DecodeString(m["value"].(string))
		require.NoError(t, err)
		require.Equal(t, raw, dec)
	})

	t.Run("cli", func(t *testing.T) {
		c := newCLI(t, s)
		c.ok(t, owner.Password+"\n", "login", "--email", owner.Email, "--password-stdin")
		file := filepath.Join(t.TempDir(), "blob.bin")
		require.NoError(t, os.WriteFile(file, raw, 0o600))
		c.ok(t, "", "secret", "put", "--vault", vault, "cli/blob", "--value-file", file)
		// The API holds the bytes, not an altered text.
		m := s.Do("GET", url("cli/blob"), owner.Token, nil).JSON(t)
		require.Equal(t, "base64", m["encoding"])
		require.Equal(t, b64, m["value"])
		// Binary on stdin keeps its trailing newline (only text loses one).
		c.ok(t, string(raw)+"\n", "secret", "put", "--vault", vault, "cli/stdin", "--value-stdin")
		require.Equal(t, base64.StdEncoding.EncodeToString(append(raw, '\n')), s.Do("GET", url("cli/stdin"), owner.Token, nil).JSON(t)["value"])
		// get --field value writes the raw bytes; --json keeps base64.
		out := c.ok(t, "", "secret", "get", "--vault", vault, "keys/blob", "--field", "value")
		require.True(t, bytes.Equal(raw, []byte(out)), "raw bytes out")
		var m2 map[string]any
		require.NoError(t, json.Unmarshal([]byte(c.ok(t, "", "--json", "secret", "get", "--vault", vault, "keys/blob")), &m2))
		require.Equal(t, "base64", m2["encoding"])
		require.Equal(t, b64, m2["value"])
	})
}
