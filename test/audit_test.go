package test

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

func TestAuditChain(t *testing.T) {
	s := stack.Start(t)
	me := s.SignUp("auditor@example.com")
	vault := s.CreateVault(me.Token, "v")
	for i := 0; i < 5; i++ {
		r := s.Do("PUT", "/v1/vaults/"+vault+"/secrets/k", me.Token, map[string]any{"type": "api_key", "value": "e2e-value-audit"})
		require.Less(t, r.Status, 300)
		require.Equal(t, http.StatusOK, s.Do("GET", "/v1/vaults/"+vault+"/secrets/k", me.Token, nil).Status)
	}

	t.Run("every request is an event", func(t *testing.T) {
		r := s.Do("GET", "/v1/audit/events?action=secret.read&limit=500", me.Token, nil)
		require.Equal(t, http.StatusOK, r.Status)
		items := r.JSON(t)["items"].([]any)
		require.Len(t, items, 5)
		ev := items[0].(map[string]any)
		require.Equal(t, "secret.read", ev["action"])
		require.Equal(t, me.UserID, ev["actor_id"])
		require.Equal(t, "success", ev["outcome"])
		require.Equal(t, "127.0.0.1", ev["client_ip"])
		require.NotEmpty(t, ev["request_id"])
		require.Contains(t, ev["resource"], "/secret/k")
		require.NotContains(t, string(r.Body), "e2e-value")
	})

	// A write records its event in its own transaction, and the audit
	// middleware must not record it a second time.
	t.Run("every write is one event", func(t *testing.T) {
		for action, want := range map[string]int{"vault.create": 1, "secret.write": 5, "auth.signup": 1} {
			r := s.Do("GET", "/v1/audit/events?action="+action+"&limit=500", me.Token, nil)
			require.Equal(t, http.StatusOK, r.Status)
			require.Len(t, r.JSON(t)["items"].([]any), want, action)
		}
	})

	// Wait for the sealer to chain everything so far.
	waitSealed(t, s, me.Token)

	verify := func() (string, error) {
		cmd := exec.Command(stack.Bin(t, "ocv"), "audit", "verify", "--database-url", s.DatabaseURL)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	out, err := verify()
	require.NoError(t, err, out)
	require.Contains(t, out, "ok   org "+me.OrgID)

	t.Run("an edited row is found", func(t *testing.T) {
		execSQL(t, s, `UPDATE audit_events SET outcome = 'failure' WHERE id = (
			SELECT id FROM audit_events WHERE action = 'secret.read' AND chain_seq IS NOT NULL ORDER BY id LIMIT 1 OFFSET 2)`)
		out, err := verify()
		require.Error(t, err)
		require.Contains(t, out, "FAIL audit chain of org "+me.OrgID+" broken at seq")
		require.Contains(t, out, "hash does not match")
	})
}

// waitSealed polls until the newest event of the caller's org carries a hash.
func waitSealed(t *testing.T, s *stack.Stack, token string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		r := s.Do("GET", "/v1/audit/events?limit=1&action=secret.read", token, nil)
		items := r.JSON(t)["items"].([]any)
		if len(items) > 0 && items[0].(map[string]any)["hash"] != nil {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatal("the sealer never chained the events")
}

func TestNoSecretValueInDatabaseOrLogs(t *testing.T) {
	s := stack.Start(t)
	me := s.SignUp("leak@example.com")
	vault := s.CreateVault(me.Token, "v")
	values := []string{"e2e-leak-canary-Zx81Qa", "e2e-leak-canary-Lm42Pq"}
	for i, v := range values {
		p := []string{"one", "nested/two"}[i]
		r := s.Do("PUT", "/v1/vaults/"+vault+"/secrets/"+p, me.Token, map[string]any{"type": "password", "value": v})
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
		r = s.Do("GET", "/v1/vaults/"+vault+"/secrets/"+p, me.Token, nil)
		require.Equal(t, v, r.JSON(t)["value"])
	}
	waitSealed(t, s, me.Token)

	dump := pgDump(t, s.DatabaseURL)
	require.Contains(t, dump, "secret_versions", "the dump should hold the schema")
	logs := s.Logs()
	require.NotEmpty(t, logs)
	for _, v := range append(values, me.Password, me.Token) {
		require.NotContains(t, dump, v)
		require.NotContains(t, logs, v)
	}
}

func pgDump(t *testing.T, url string) string {
	t.Helper()
	bin, err := exec.LookPath("pg_dump")
	if err != nil {
		matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_dump")
		require.NotEmpty(t, matches, "pg_dump not found")
		bin = matches[len(matches)-1]
	}
	cmd := exec.Command(bin, "--no-owner", "--dbname", url)
	cmd.Env = os.Environ()
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	return strings.ToValidUTF8(out.String(), "?")
}

func runOCV(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(stack.Bin(t, "ocv"), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}
