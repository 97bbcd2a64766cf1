package test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

// answerBound is how long any answer may take while PostgreSQL is frozen or
// stopped: an upper bound with a generous margin over the store's 10 s
// response deadline, never a lower one.
const answerBound = 30 * time.Second

// healthBound is the upper bound of /v1/health's answer: its checks give up
// after 2 s each, concurrently; the rest is margin for a loaded host.
const healthBound = 15 * time.Second

// TestFrozenDatabase freezes (SIGSTOP) and then stops the stack's own
// PostgreSQL cluster: health, a read and a write answer 503 with
// Retry-After within a bound instead of hanging or answering 500, and the
// stack serves again once the database is back.
func TestFrozenDatabase(t *testing.T) {
	pg := startPrivateCluster(t)
	s := stack.Start(t, stack.WithDatabaseURL(pg.url))
	s.WaitAttested()
	me := s.SignUp("frozen@example.com")
	vault := s.CreateVault(me.Token, "frozen")
	path := "/v1/vaults/" + vault + "/secrets/app/key"
	r := s.Do("PUT", path, me.Token, map[string]any{"type": "password", "value": "before-the-freeze"})
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))

	client := boundedClient(s)
	requireUnavailable := func(t *testing.T) {
		t.Helper()
		var wg sync.WaitGroup
		results := make([]dbAnswer, 3)
		for i, req := range []struct{ method, path, body string }{
			{"GET", "/v1/health", ""},
			{"GET", path, ""},
			{"PUT", path, `{"type":"password","value":"during-the-outage"}`},
		} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = sendBounded(s, client, req.method, req.path, me.Token, req.body)
			}()
		}
		wg.Wait()
		health, get, put := results[0], results[1], results[2]

		for name, a := range map[string]dbAnswer{"health": health, "GET": get, "PUT": put} {
			t.Logf("%s answered %d in %s", name, a.status, a.took.Round(time.Millisecond))
		}
		require.NoError(t, health.err, "health must answer within %s", answerBound)
		require.Less(t, health.took, healthBound, "health answers within its own deadline")
		require.Equal(t, http.StatusServiceUnavailable, health.status, health.body)
		var h struct {
			Status string `json:"status"`
			Checks map[string]struct {
				Status string `json:"status"`
			} `json:"checks"`
		}
		require.NoError(t, json.Unmarshal([]byte(health.body), &h), health.body)
		require.Equal(t, "unavailable", h.Status, health.body)
		require.Equal(t, "unavailable", h.Checks["database"].Status, health.body)
		require.Equal(t, "ok", h.Checks["enclave"].Status, "only the database is down: %s", health.body)
		require.NotEmpty(t, health.retryAfter, "a 503 health answer carries Retry-After")

		for name, a := range map[string]dbAnswer{"GET of the secret": get, "PUT of the secret": put} {
			require.NoError(t, a.err, "%s must answer within %s", name, answerBound)
			require.Equal(t, http.StatusServiceUnavailable, a.status, "%s: %s", name, a.body)
			require.Contains(t, a.body, `"type":"`, name)
			require.Contains(t, a.body, "storage_unavailable", "%s: %s", name, a.body)
			require.NotEmpty(t, a.retryAfter, "%s answers with Retry-After", name)
			_, err := strconv.Atoi(a.retryAfter)
			require.NoError(t, err, "%s: Retry-After is whole seconds", name)
		}
	}
	requireServes := func(t *testing.T) {
		t.Helper()
		deadline := time.Now().Add(90 * time.Second)
		var last dbAnswer
		for time.Now().Before(deadline) {
			last = sendBounded(s, client, "GET", path, me.Token, "")
			if last.err == nil && last.status == http.StatusOK {
				break
			}
			time.Sleep(500 * time.Millisecond)
		}
		require.NoError(t, last.err)
		require.Equal(t, http.StatusOK, last.status, last.body)
		require.Contains(t, last.body, "before-the-freeze")
		h := sendBounded(s, client, "GET", "/v1/health", "", "")
		require.NoError(t, h.err)
		require.Equal(t, http.StatusOK, h.status, h.body)
	}

	t.Run("frozen PostgreSQL answers 503 storage_unavailable, never hangs", func(t *testing.T) {
		pg.signal(t, syscall.SIGSTOP)
		thawed := false
		thaw := func() {
			if !thawed {
				thawed = true
				pg.signal(t, syscall.SIGCONT)
			}
		}
		defer thaw()
		requireUnavailable(t)
		thaw()
		requireServes(t)
	})

	t.Run("stopped PostgreSQL answers 503 with Retry-After, not 500", func(t *testing.T) {
		pg.stop(t)
		requireUnavailable(t)
		pg.start(t)
		requireServes(t)
	})
}

type dbAnswer struct {
	status     int
	body       string
	retryAfter string
	took       time.Duration
	err        error
}

// boundedClient is the stack's HTTPS client with answerBound as its
// timeout: a request that hangs fails the test instead of blocking it.
func boundedClient(s *stack.Stack) *http.Client {
	c := *s.HTTP
	c.Timeout = answerBound
	return &c
}

func sendBounded(s *stack.Stack, c *http.Client, method, path, token, body string) dbAnswer {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.BaseURL+path, rd)
	if err != nil {
		return dbAnswer{err: err}
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return dbAnswer{err: err, took: time.Since(start)}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return dbAnswer{status: resp.StatusCode, body: string(b), retryAfter: resp.Header.Get("Retry-After"), err: err, took: time.Since(start)}
}

// privateCluster is a PostgreSQL cluster of this test alone, run by the
// postgres OS user when the test runs as root (initdb refuses root).
type privateCluster struct {
	bin, dir, data, port, url string
	as                        []string // command prefix running as the cluster's owner
}

// pgBinDir finds the newest PostgreSQL server binaries: Debian keeps them
// under /usr/lib/postgresql/<version>/bin, off PATH.
func pgBinDir() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi > vj
	})
	for _, d := range dirs {
		if isExec(filepath.Join(d, "initdb")) && isExec(filepath.Join(d, "pg_ctl")) && isExec(filepath.Join(d, "postgres")) {
			return d
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		d := filepath.Dir(p)
		if isExec(filepath.Join(d, "pg_ctl")) && isExec(filepath.Join(d, "postgres")) {
			return d
		}
	}
	return ""
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

func startPrivateCluster(t *testing.T) *privateCluster {
	t.Helper()
	bin := pgBinDir()
	if bin == "" {
		t.Skip("no PostgreSQL server binaries (initdb, pg_ctl, postgres) under /usr/lib/postgresql/*/bin or on PATH")
	}
	dir, err := os.MkdirTemp("", "ocv-frozen-pg-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	c := &privateCluster{bin: bin, dir: dir, data: filepath.Join(dir, "data")}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		require.NoError(t, err, "running as root, the cluster needs the postgres OS user")
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		require.NoError(t, os.Chown(dir, uid, gid))
		c.as = []string{"runuser", "-u", "postgres", "--"}
	}
	c.run(t, filepath.Join(bin, "initdb"), "-D", c.data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C")
	c.port = freeTCPPort(t)
	conf := fmt.Sprintf("listen_addresses = '127.0.0.1'\nport = %s\nunix_socket_directories = '%s'\nmax_connections = 100\n", c.port, dir)
	f, err := os.OpenFile(filepath.Join(c.data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(conf)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	c.url = "postgres://postgres@127.0.0.1:" + c.port + "/postgres?sslmode=disable"
	c.start(t)
	t.Cleanup(func() {
		c.signalAll(syscall.SIGCONT) // never leave a frozen cluster behind
		_ = c.command(filepath.Join(bin, "pg_ctl"), "-D", c.data, "-m", "immediate", "-w", "stop").Run()
	})
	return c
}

// command runs prog as the cluster's owner.
func (c *privateCluster) command(prog string, args ...string) *exec.Cmd {
	if len(c.as) == 0 {
		return exec.Command(prog, args...)
	}
	all := append(append(append([]string(nil), c.as[1:]...), prog), args...)
	return exec.Command(c.as[0], all...)
}

func (c *privateCluster) run(t *testing.T, prog string, args ...string) {
	t.Helper()
	cmd := c.command(prog, args...)
	cmd.Dir = c.dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s %v: %s", prog, args, out)
}

func (c *privateCluster) start(t *testing.T) {
	t.Helper()
	c.run(t, filepath.Join(c.bin, "pg_ctl"), "-D", c.data, "-l", filepath.Join(c.dir, "postgres.log"), "-w", "-t", "60", "start")
}

// stop shuts the cluster down at once, as a crash or a lost host would.
func (c *privateCluster) stop(t *testing.T) {
	t.Helper()
	c.run(t, filepath.Join(c.bin, "pg_ctl"), "-D", c.data, "-m", "immediate", "-w", "stop")
}

// signal sends sig to the postmaster and every process of the cluster (its
// children): SIGSTOP freezes the whole server, SIGCONT thaws it.
func (c *privateCluster) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	require.NotZero(t, c.signalAll(sig), "no postgres process found for %s", c.data)
}

func (c *privateCluster) signalAll(sig syscall.Signal) int {
	b, err := os.ReadFile(filepath.Join(c.data, "postmaster.pid"))
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	master, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || master <= 0 {
		return 0
	}
	// The postmaster first, so that it forks nothing new meanwhile.
	n := 0
	if syscall.Kill(master, sig) == nil {
		n++
	}
	for _, pid := range childrenOf(master) {
		if syscall.Kill(pid, sig) == nil {
			n++
		}
	}
	return n
}

// childrenOf lists the processes whose parent is pid (from /proc).
func childrenOf(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so cut at the last ')'.
		i := strings.LastIndexByte(string(stat), ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(stat[i+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}

func freeTCPPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}
