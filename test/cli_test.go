package test

import (
	"bufio"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

// cliRunner drives the built ocv binary against a stack, with its token
// cache in a temp dir.
type cliRunner struct {
	s       *stack.Stack
	bin     string
	env     []string
	work    string
	cfg     string
	outputs []string // everything the CLI printed: no secret may appear in it
}

type cliResult struct {
	stdout, stderr string
	code           int
}

func newCLI(t *testing.T, s *stack.Stack) *cliRunner {
	c := &cliRunner{s: s, bin: stack.Bin(t, "ocv"), work: t.TempDir(), cfg: t.TempDir()}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OCV_") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			c.env = append(c.env, kv)
		}
	}
	c.env = append(c.env, "XDG_CONFIG_HOME="+c.cfg, "OCV_URL="+s.BaseURL, "OCV_CACERT="+filepath.Join(s.Dir, "tls", "ca.pem"))
	return c
}

// run runs ocv with stdin and extra environment variables.
func (c *cliRunner) run(t *testing.T, stdin string, env []string, args ...string) cliResult {
	t.Helper()
	cmd := exec.Command(c.bin, args...)
	cmd.Dir = c.work
	cmd.Env = append(append([]string{}, c.env...), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := cliResult{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
	default:
		t.Fatalf("running ocv %s: %v", args[0], err)
	}
	c.outputs = append(c.outputs, res.stdout, res.stderr)
	return res
}

// ok runs ocv and requires exit code 0.
func (c *cliRunner) ok(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	r := c.run(t, stdin, nil, args...)
	if r.code != 0 {
		t.Fatalf("ocv %s: exit %d: %s\nstack logs:\n%s", strings.Join(args, " "), r.code, r.stderr, c.s.Logs())
	}
	return r.stdout
}

func TestCLI(t *testing.T) {
	s := stack.Start(t)
	me := s.SignUp("cli@example.com")
	c := newCLI(t, s)
	const value = "cli-e2e-value-Zq9x7"
	const path = "team a/café/db-password" // a space and a non-ASCII letter: escaped per segment
	var tokens []string

	out := c.ok(t, me.Password+"\n", "login", "--email", me.Email, "--password-stdin")
	require.Contains(t, out, "Logged in to "+s.BaseURL)

	t.Run("credentials cache is private", func(t *testing.T) {
		dir := filepath.Join(c.cfg, "ocv")
		st, err := os.Stat(dir)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o700), st.Mode().Perm())
		st, err = os.Stat(filepath.Join(dir, "credentials.json"))
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
		f := readCreds(t, c)
		require.Len(t, f.Entries, 1)
		e := f.Entries[s.BaseURL]
		require.True(t, strings.HasPrefix(e.RefreshToken, "ocvr_"), "password login caches a refresh token")
		tokens = append(tokens, e.AccessToken, e.RefreshToken)
	})

	var vaultID string
	t.Run("vault commands", func(t *testing.T) {
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(c.ok(t, "", "--json", "vault", "create", "cli-vault", "--description", "made by the CLI")), &v))
		vaultID = v["id"].(string)
		require.Equal(t, "cli-vault", v["name"])
		require.Contains(t, c.ok(t, "", "vault", "list"), vaultID)
		out := c.ok(t, "", "vault", "get", "cli-vault")
		require.Contains(t, out, vaultID)
		require.Contains(t, out, "made by the CLI")

		other := c.ok(t, "", "--json", "vault", "create", "cli-doomed")
		require.NoError(t, json.Unmarshal([]byte(other), &v))
		c.ok(t, "", "vault", "delete", v["id"].(string))
		r := c.run(t, "", nil, "vault", "get", v["id"].(string))
		require.Equal(t, 1, r.code)
		require.Equal(t, "ocv: Not Found: vault not found (not_found, HTTP 404)\n", r.stderr)
	})

	t.Run("secret put get list", func(t *testing.T) {
		out := c.ok(t, value+"\n", "secret", "put", "--vault", "cli-vault", path, "--value-stdin", "--type", "password", "--metadata", "owner=ops")
		require.Contains(t, out, "version 1")
		requireTrue(t, c.ok(t, "", "secret", "get", "--vault", vaultID, path, "--field", "value") == value,
			"--field value prints the value exactly (the stdin newline dropped)")
		table := c.ok(t, "", "secret", "get", "--vault", vaultID, path)
		requireTrue(t, !strings.Contains(table, value), "the table hides the value")
		require.Contains(t, table, "ops")
		requireTrue(t, strings.Contains(c.ok(t, "", "secret", "get", "--vault", vaultID, path, "--reveal"), value), "--reveal shows the value")

		c.ok(t, "", "secret", "put", "--vault", vaultID, "team a/other", "--value-file", writeTemp(t, "second"))
		r := c.run(t, "", nil, "secret", "put", "--vault", vaultID, "lit", "--value", "third")
		require.Equal(t, 0, r.code, r.stderr)
		require.Contains(t, r.stderr, "shell history")

		list := c.ok(t, "", "secret", "list", "--vault", vaultID, "--prefix", "team a/")
		require.Contains(t, list, path)
		require.Contains(t, list, "team a/other")
		require.NotContains(t, list, "lit")
		var page struct{ Items []map[string]any }
		require.NoError(t, json.Unmarshal([]byte(c.ok(t, "", "--json", "secret", "list", "--vault", vaultID)), &page))
		require.Len(t, page.Items, 3)

		r = c.run(t, "", nil, "secret", "get", "--vault", vaultID, "no/such")
		require.Equal(t, 1, r.code)
		require.Equal(t, "ocv: Not Found: secret not found (not_found, HTTP 404)\n", r.stderr)
		c.ok(t, "", "secret", "delete", "--vault", vaultID, "lit")
		require.Equal(t, 1, c.run(t, "", nil, "secret", "get", "--vault", vaultID, "lit").code)
	})

	t.Run("usage errors exit 2", func(t *testing.T) {
		require.Equal(t, 2, c.run(t, "", nil, "vault", "get").code)
		require.Equal(t, 2, c.run(t, "", nil, "secret", "put", "--vault", vaultID, "x").code, "no value source")
		require.Equal(t, 2, c.run(t, "", nil, "nonsense").code)
	})

	t.Run("run injects secrets into a child", func(t *testing.T) {
		r := c.run(t, "", []string{"OCV_TOKEN="}, "run", "--vault", "cli-vault", "--path", "team a", "--",
			"sh", "-c", `test "$DB_PASSWORD" = `+value+` && test "$OTHER" = second && test -z "$OCV_TOKEN"`)
		require.Equal(t, 0, r.code, r.stderr)
		require.Equal(t, 7, c.run(t, "", nil, "run", "--vault", vaultID, "--path", "team a", "--", "sh", "-c", "exit 7").code,
			"ocv run exits with the child's code")
		r = c.run(t, "", nil, "run", "--vault", vaultID, "--env", "MY_DB="+path, "--path", "team a/café", "--",
			"sh", "-c", `test "$MY_DB" = `+value+` && test -z "$DB_PASSWORD"`)
		require.Equal(t, 0, r.code, "an explicit --env mapping wins: %s", r.stderr)
		r = c.run(t, "", nil, "run", "--vault", vaultID, "--path", "nowhere", "--", "true")
		require.Equal(t, 1, r.code)
		require.Contains(t, r.stderr, "no secret")
	})

	t.Run("run forwards signals", func(t *testing.T) {
		cmd := exec.Command(c.bin, "run", "--vault", vaultID, "--path", "team a", "--",
			"sh", "-c", `trap 'exit 3' TERM; echo ready; while :; do sleep 0.1; done`)
		cmd.Dir, cmd.Env = c.work, c.env
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		line, err := bufio.NewReader(out).ReadString('\n')
		require.NoError(t, err)
		require.Equal(t, "ready\n", line)
		require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
		var ee *exec.ExitError
		require.ErrorAs(t, cmd.Wait(), &ee)
		require.Equal(t, 3, ee.ExitCode(), "the child got SIGTERM and ocv exited with its code")

		r := c.run(t, "", nil, "run", "--vault", vaultID, "--path", "team a", "--", "sh", "-c", "kill -KILL $$")
		require.Equal(t, 128+9, r.code, "a child killed by a signal gives 128+N")
	})

	t.Run("expired access token is refreshed", func(t *testing.T) {
		f := readCreds(t, c)
		e := f.Entries[s.BaseURL]
		e.ExpiresAt = time.Now().Add(-time.Minute)
		f.Entries[s.BaseURL] = e
		writeCreds(t, c, f)
		c.ok(t, "", "vault", "list")
		after := readCreds(t, c).Entries[s.BaseURL]
		require.NotEqual(t, e.RefreshToken, after.RefreshToken, "the refresh token rotated")
		require.True(t, after.ExpiresAt.After(time.Now()))
		tokens = append(tokens, after.AccessToken, after.RefreshToken)
	})

	t.Run("agents", func(t *testing.T) {
		keyFile := filepath.Join(t.TempDir(), "agent.key")
		out := c.ok(t, "", "agent", "create", "cli-bot", "--description", "deploys", "--key-file", keyFile)
		require.Contains(t, out, "written to "+keyFile)
		st, err := os.Stat(keyFile)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
		b, err := os.ReadFile(keyFile)
		require.NoError(t, err)
		key := strings.TrimSpace(string(b))
		require.True(t, strings.HasPrefix(key, "ocv_"))
		tokens = append(tokens, key)
		var list struct{ Items []map[string]any }
		require.NoError(t, json.Unmarshal([]byte(c.ok(t, "", "--json", "agent", "list")), &list))
		require.Len(t, list.Items, 1)
		id := list.Items[0]["id"].(string)
		require.Contains(t, c.ok(t, "", "agent", "get", id), "deploys")

		// The agent signs in from its own machine (its own cache).
		bot := newCLI(t, s)
		out = bot.ok(t, key+"\n", "login", "--agent", id)
		require.Contains(t, out, "agent "+id)
		require.Contains(t, bot.ok(t, "", "agent", "me"), "cli-bot")
		r := bot.run(t, "", nil, "agent", "list")
		require.Equal(t, 1, r.code)
		require.Contains(t, r.stderr, "(human_only, HTTP 403)")

		// Policies: the agent reads the secrets only once one allows it.
		r = bot.run(t, "", nil, "run", "--vault", vaultID, "--path", "team a", "--", "true")
		require.Equal(t, 1, r.code, "no policy yet: %s", r.stderr)
		var pol map[string]any
		require.NoError(t, json.Unmarshal([]byte(c.ok(t, "", "--json", "policy", "create", "--vault", "cli-vault",
			"--pattern", "team a/**", "--principal-type", "agent", "--principal", id, "--permissions", "read")), &pol))
		polID := pol["id"].(string)
		require.Contains(t, c.ok(t, "", "policy", "list", "--vault", vaultID), polID)
		bot.ok(t, key+"\n", "login", "--agent", id) // a policy change revokes the agent's tokens
		r = bot.run(t, "", nil, "run", "--vault", vaultID, "--path", "team a", "--", "sh", "-c", `test "$DB_PASSWORD" = `+value)
		require.Equal(t, 0, r.code, r.stderr)
		out = c.ok(t, "", "policy", "update", "--vault", vaultID, polID, "--pattern", "team a/**", "--principal-type", "agent",
			"--principal", id, "--permissions", "read", "--effect", "deny")
		require.Contains(t, out, "deny")
		c.ok(t, "", "policy", "delete", "--vault", vaultID, polID)
		require.NotContains(t, c.ok(t, "", "policy", "list", "--vault", vaultID), polID)

		// A rotated key ends the agent's session.
		keyFile2 := filepath.Join(t.TempDir(), "agent2.key")
		c.ok(t, "", "agent", "rotate-key", id, "--key-file", keyFile2)
		r = bot.run(t, "", nil, "agent", "me")
		require.Equal(t, 1, r.code)
		require.Contains(t, r.stderr, "HTTP 401")
		c.ok(t, "", "agent", "delete", id)
		require.Contains(t, c.ok(t, "", "agent", "get", id), "inactive")
		c.outputs = append(c.outputs, bot.outputs...)
	})

	t.Run("logout revokes", func(t *testing.T) {
		tok := strings.TrimSpace(c.ok(t, "", "token"))
		c.outputs = c.outputs[:len(c.outputs)-2] // ocv token prints the token by design
		refresh := readCreds(t, c).Entries[s.BaseURL].RefreshToken
		c.ok(t, "", "logout")
		require.Empty(t, readCreds(t, c).Entries)
		r := c.run(t, "", nil, "vault", "list")
		require.Equal(t, 1, r.code)
		require.Contains(t, r.stderr, "not logged in")
		r = c.run(t, "", []string{"OCV_TOKEN=" + tok}, "vault", "list")
		require.Equal(t, 1, r.code, "the revoked access token is refused")
		require.Contains(t, r.stderr, "(invalid_token, HTTP 401)")
		requireProblem(t, s.Do("POST", "/v1/auth/refresh", "", map[string]string{"refresh_token": refresh}), 401, "invalid_token")
	})

	t.Run("api key login", func(t *testing.T) {
		r := s.Do("POST", "/v1/auth/api-keys", me.Token, map[string]any{"name": "cli"})
		require.Equal(t, http.StatusCreated, r.Status)
		key := r.JSON(t)["key"].(string)
		tokens = append(tokens, key)
		res := c.run(t, "", []string{"OCV_API_KEY=" + key}, "login", "--api-key")
		require.Equal(t, 0, res.code, res.stderr)
		require.Contains(t, c.ok(t, "", "vault", "list"), vaultID)
		res = c.run(t, key+"\n", nil, "login", "--api-key")
		require.Equal(t, 0, res.code, res.stderr)
		c.ok(t, "", "logout")
	})

	require.NotEmpty(t, tokens)
	for _, o := range c.outputs {
		requireTrue(t, !strings.Contains(o, me.Password), "the CLI never prints the password")
		for i, tok := range tokens {
			requireTrue(t, !strings.Contains(o, tok), "the CLI never prints a token or key (outside ocv token); token #%d", i)
		}
		if strings.Contains(o, value) {
			requireTrue(t, o == value || strings.Contains(o, "value:"), "the value appears only with --field value or --reveal")
		}
	}
}

// requireTrue is require.True with a message that never quotes the values
// compared: they are credentials or secret values.
func requireTrue(t *testing.T, ok bool, msg string, args ...any) {
	t.Helper()
	if !ok {
		t.Fatalf(msg, args...)
	}
}

type cliCreds struct {
	Version int `json:"version"`
	Entries map[string]struct {
		AccessToken  string    `json:"access_token"`
		RefreshToken string    `json:"refresh_token,omitempty"`
		ExpiresAt    time.Time `json:"expires_at"`
		Email        string    `json:"email,omitempty"`
		Method       string    `json:"method"`
	} `json:"entries"`
}

func readCreds(t *testing.T, c *cliRunner) cliCreds {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.cfg, "ocv", "credentials.json"))
	require.NoError(t, err)
	var f cliCreds
	require.NoError(t, json.Unmarshal(b, &f))
	return f
}

func writeCreds(t *testing.T, c *cliRunner, f cliCreds) {
	t.Helper()
	b, err := json.Marshal(f)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(c.cfg, "ocv", "credentials.json"), b, 0o600))
}

func writeTemp(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "value")
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}
