package test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

// TestSecretCacheReplicas runs two proxies on one database: proxy B caches
// the sealed secrets it reads, and every change made through proxy A
// reaches B's readers within the change feed's delay (waited for up to
// 10 s, never asserted as a lower bound), including after B's feed
// connection is killed.
func TestSecretCacheReplicas(t *testing.T) {
	a := stack.Start(t)
	adminPort := freeLocalPort(t)
	b := a.StartSecondProxy("OCV_ADMIN_LISTEN=127.0.0.1:" + adminPort)
	me := a.SignUp("cache-owner@example.com")
	other := a.SignUp("cache-mallory@example.com")
	vault := a.CreateVault(me.Token, "cached")
	path := "/v1/vaults/" + vault + "/secrets/app/db-password"
	put := func(s *stack.Stack, value string, h http.Header) int {
		t.Helper()
		r := s.DoHeaders("PUT", path, me.Token, map[string]any{"type": "password", "value": value}, h)
		require.Contains(t, []int{http.StatusOK, http.StatusCreated}, r.Status, string(r.Body))
		return int(r.JSON(t)["version"].(float64))
	}
	get := func(s *stack.Stack, p, token string) (int, string) {
		t.Helper()
		r := s.Do("GET", p, token, nil)
		if r.Status != http.StatusOK {
			return r.Status, ""
		}
		return r.Status, r.JSON(t)["value"].(string)
	}
	eventually := func(what string, s *stack.Stack, p string, wantStatus int, wantValue string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			status, value := get(s, p, me.Token)
			if status == wantStatus && value == wantValue {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: proxy B still answers %d %q after 10 s, want %d %q", what, status, value, wantStatus, wantValue)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitFeeds(t, a.DatabaseURL, 2)

	put(a, "cache-value-one", nil)
	eventually("first read", b, path, http.StatusOK, "cache-value-one")
	// B caches the key: one of the next reads is a hit (a fill racing the write's
	// change, seen by the feed meanwhile, is refused: not necessarily the second).
	for deadline := time.Now().Add(10 * time.Second); metric(t, adminPort, "ocv_secret_cache_hits_total") == 0; {
		status, value := get(b, path, me.Token)
		require.Equal(t, http.StatusOK, status)
		require.Equal(t, "cache-value-one", value)
		require.True(t, time.Now().Before(deadline), "proxy B never served the key from its cache")
	}

	t.Run("the cache answers no one the database would not", func(t *testing.T) {
		// Another organization asks for the cached key's vault and path.
		status, _ := get(b, path, other.Token)
		require.Equal(t, http.StatusNotFound, status)
		status, value := get(b, path, me.Token)
		require.Equal(t, http.StatusOK, status)
		require.Equal(t, "cache-value-one", value)
	})

	t.Run("a new version written on A reaches B", func(t *testing.T) {
		put(a, "cache-value-two", nil)
		eventually("after a write on A", b, path, http.StatusOK, "cache-value-two")
	})

	t.Run("B reads its own writes at once", func(t *testing.T) {
		put(b, "cache-value-three", nil)
		status, value := get(b, path, me.Token)
		require.Equal(t, http.StatusOK, status)
		require.Equal(t, "cache-value-three", value)
		put(b, "cache-value-four", http.Header{"Idempotency-Key": {"secretcache-own-write"}})
		status, value = get(b, path, me.Token)
		require.Equal(t, http.StatusOK, status)
		require.Equal(t, "cache-value-four", value)
		eventually("A's readers", a, path, http.StatusOK, "cache-value-four")
	})

	t.Run("a killed feed connection flushes the cache", func(t *testing.T) {
		eventually("fill", b, path, http.StatusOK, "cache-value-four")
		killFeeds(t, a.DatabaseURL)
		// Written while B may have no feed: B must not serve what it
		// cached before.
		put(a, "cache-value-five", nil)
		eventually("after the feed connection was killed", b, path, http.StatusOK, "cache-value-five")
		waitFeeds(t, a.DatabaseURL, 2)
		status, value := get(b, path, me.Token)
		require.Equal(t, http.StatusOK, status)
		require.Equal(t, "cache-value-five", value)
		put(a, "cache-value-six", nil)
		eventually("after the feed restarted", b, path, http.StatusOK, "cache-value-six")
	})

	t.Run("a deletion on A reaches B", func(t *testing.T) {
		eventually("fill", b, path, http.StatusOK, "cache-value-six")
		r := a.Do("DELETE", path, me.Token, nil)
		require.Equal(t, http.StatusNoContent, r.Status, string(r.Body))
		eventually("after a deletion on A", b, path, http.StatusNotFound, "")
	})

	t.Run("a vault deletion on A reaches B", func(t *testing.T) {
		gone := a.CreateVault(me.Token, "cached-then-deleted")
		p := "/v1/vaults/" + gone + "/secrets/k"
		r := a.Do("PUT", p, me.Token, map[string]any{"type": "password", "value": "in-a-deleted-vault"})
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
		eventually("fill", b, p, http.StatusOK, "in-a-deleted-vault")
		r = a.Do("DELETE", "/v1/vaults/"+gone, me.Token, nil)
		require.Equal(t, http.StatusNoContent, r.Status, string(r.Body))
		eventually("after a vault deletion on A", b, p, http.StatusNotFound, "")
	})
}

func freeLocalPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	_, port, err := net.SplitHostPort(l.Addr().String())
	require.NoError(t, err)
	return port
}

// feedQuery matches what pg_stat_activity shows of a secret change feed's
// connection (store.SecretChangeFeed: every poll reads pg_current_snapshot()).
const feedQuery = `%pg_current_snapshot()%`

// waitFeeds waits up to 30 s until n secret change feeds poll.
func waitFeeds(t *testing.T, dbURL string, n int) {
	t.Helper()
	conn, err := pgx.Connect(stack.Context(t), dbURL)
	require.NoError(t, err)
	defer conn.Close(stack.Context(t))
	deadline := time.Now().Add(30 * time.Second)
	for {
		var got int
		require.NoError(t, conn.QueryRow(stack.Context(t), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE $1`, feedQuery).Scan(&got))
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d secret change feeds after 30 s, want %d", got, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// killFeeds terminates every secret change feed's backend.
func killFeeds(t *testing.T, dbURL string) {
	t.Helper()
	conn, err := pgx.Connect(stack.Context(t), dbURL)
	require.NoError(t, err)
	defer conn.Close(stack.Context(t))
	var killed int
	require.NoError(t, conn.QueryRow(stack.Context(t), `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))
		FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE $1`,
		feedQuery).Scan(&killed))
	require.Positive(t, killed)
}

// metric reads a counter from the admin listener at 127.0.0.1:port.
func metric(t *testing.T, port, name string) float64 {
	t.Helper()
	resp, err := http.Get("http://127.0.0.1:" + port + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == name {
			v, err := strconv.ParseFloat(f[1], 64)
			require.NoError(t, err)
			return v
		}
	}
	require.Fail(t, fmt.Sprintf("metric %s not exposed", name), string(body))
	return 0
}
