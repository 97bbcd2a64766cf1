// Package stack boots OCV's two binaries for end-to-end tests: a fresh
// SoftHSM2 token, a fresh PostgreSQL database, ocv-enclave on a Unix socket
// with the simulated attester, and ocv-proxy serving HTTPS with its dev CA.
// Nothing is mocked.
package stack

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha512"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/enclave/client"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store/storetest"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// Bin returns the path of a binary built once per test process, with -race
// and the ocvtest tag (internal/testbuild: the test-only settings and hooks).
func Bin(t testing.TB, name string) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "ocv-e2e-bin-")
		if buildErr != nil {
			return
		}
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		cmd := exec.Command("go", "build", "-race", "-tags", "ocvtest", "-o", binDir+"/", "./cmd/ocv-enclave", "./cmd/ocv-proxy", "./cmd/ocv")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("building binaries: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, name)
}

// Stack is one running OCV deployment.
type Stack struct {
	t           testing.TB
	Dir         string
	BaseURL     string
	DatabaseURL string
	EnclaveAddr string
	SocketPath  string
	RootPath    string
	PCR0        string
	HTTP        *http.Client
	// ProxyIdentity is the proxy's identity key, provisioned for this stack
	// (its file, mode 0600, is ProxyIdentityPath; the enclave is configured
	// with its public key).
	ProxyIdentity     *client.Identity
	ProxyIdentityPath string

	enclaveEnv []string
	enclave    *proc
	proxy      *proc
	proxyArgs  []string // the proxy's environment, for StartProxy
	mu         sync.Mutex
	logs       []string
}

// Option changes how a stack starts.
type Option func(*options)

type options struct {
	proxyEnv    []string
	databaseURL string
}

// WithDatabaseURL runs the stack on the database at url (e.g. in a private
// PostgreSQL cluster the test controls) instead of a fresh database of the
// shared test server. The test owns that database: the stack neither
// creates nor drops it.
func WithDatabaseURL(url string) Option {
	return func(o *options) { o.databaseURL = url }
}

// WithProxyEnv adds environment variables to the proxy (e.g. a wrong PCR0).
// The settings both processes share (sharedEnv: the token issuer and
// lifetimes) reach the enclave too, as scripts/run.sh passes them.
func WithProxyEnv(kv ...string) Option {
	return func(o *options) { o.proxyEnv = append(o.proxyEnv, kv...) }
}

// Start boots a stack and waits until the proxy answers /v1/health with its
// database up (the enclave may still be attesting: WaitAttested waits for
// it).
func Start(t testing.TB, opts ...Option) *Stack {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	// Unix socket paths are limited to 108 bytes: keep the directory short.
	dir, err := os.MkdirTemp("", "ocv-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	s := &Stack{t: t, Dir: dir, SocketPath: filepath.Join(dir, "enclave.sock")}
	s.EnclaveAddr = "unix://" + s.SocketPath
	s.RootPath = filepath.Join(dir, "attestation", "root.pem")
	s.DatabaseURL = o.databaseURL
	if s.DatabaseURL == "" {
		s.DatabaseURL = storetest.NewDatabase(t)
	}

	conf := s.initToken()
	s.provisionIdentity()
	enclaveBin := Bin(t, "ocv-enclave")
	sum, err := fileSHA384(enclaveBin)
	if err != nil {
		t.Fatal(err)
	}
	s.PCR0 = sum
	port := freePort(t)
	s.BaseURL = "https://127.0.0.1:" + port
	// The issuer of the proxy's tokens, which the enclave checks too.
	publicURL := "OCV_PUBLIC_URL=" + s.BaseURL
	s.enclaveEnv = []string{
		"SOFTHSM2_CONF=" + conf,
		"OCV_ENCLAVE_LISTEN=" + s.EnclaveAddr,
		"OCV_ENCLAVE_TOKEN_LABEL=ocv",
		"OCV_ENCLAVE_PIN_FILE=" + filepath.Join(dir, "softhsm", "pin"),
		"OCV_ENCLAVE_ATTESTER=sim",
		"OCV_ENCLAVE_ATTESTATION_DIR=" + filepath.Join(dir, "attestation"),
		"OCV_PROXY_IDENTITY_PUBKEYS=" + wire.FormatPeerPublicKey(s.ProxyIdentity.PublicKey()),
		publicURL,
	}
	s.enclaveEnv = append(s.enclaveEnv, sharedEnv(o.proxyEnv)...)
	s.StartEnclave()

	env := []string{
		"OCV_LISTEN=127.0.0.1:" + port,
		publicURL,
		"OCV_ADMIN_LISTEN=",
		"OCV_DATABASE_URL=" + s.DatabaseURL,
		"OCV_ENCLAVE_ADDR=" + s.EnclaveAddr,
		"OCV_PROXY_IDENTITY_KEY=" + s.ProxyIdentityPath,
		"OCV_DATA_DIR=" + dir,
		"OCV_ATTESTATION_PCR0=" + s.PCR0,
		"OCV_ATTESTATION_ROOT=" + s.RootPath,
		// The Free tier's quota (1,000 calls a month) and its vault, secret
		// and agent caps are lifted so that long tests never hit 402 or 403
		// resource_limit_exceeded; metering tests set their own with
		// WithProxyEnv, which comes later and wins.
		"OCV_TIER_FREE_REQUESTS=unlimited", "OCV_TIER_FREE_VAULTS=unlimited",
		"OCV_TIER_FREE_SECRETS=unlimited", "OCV_TIER_FREE_AGENTS=unlimited", "OCV_TIER_FREE_WALLETS=unlimited",
		// The tests' RPC nodes, facilitators and S3 servers run on
		// loopback, which the outbound policy refuses; this TEST ONLY
		// setting admits them (webhooks keep their own switch). Tests of
		// the policy turn it off with WithProxyEnv.
		"OCV_EGRESS_TEST_ALLOW_LOOPBACK=true",
	}
	s.proxyArgs = append(env, o.proxyEnv...)
	s.proxy = s.run("proxy", Bin(t, "ocv-proxy"), s.proxyArgs)
	s.waitHTTP()
	t.Cleanup(s.Stop)
	return s
}

// sharedEnv picks from kv the settings both processes read: the token
// issuer and lifetimes.
func sharedEnv(kv []string) []string {
	var out []string
	for _, e := range kv {
		name, _, _ := strings.Cut(e, "=")
		switch name {
		case "OCV_PUBLIC_URL", "OCV_TOKEN_TTL", "OCV_AGENT_TOKEN_TTL":
			out = append(out, e)
		}
	}
	return out
}

// provisionIdentity makes the proxy's identity key in the stack's
// directory, as `make run` does under .ocv/.
func (s *Stack) provisionIdentity() {
	id, err := client.GenerateIdentity()
	if err != nil {
		s.t.Fatal(err)
	}
	s.ProxyIdentity, s.ProxyIdentityPath = id, filepath.Join(s.Dir, "proxy-identity.key")
	if err := id.WriteFile(s.ProxyIdentityPath); err != nil {
		s.t.Fatal(err)
	}
}

func (s *Stack) initToken() string {
	t := s.t
	hsm := filepath.Join(s.Dir, "softhsm")
	if err := os.MkdirAll(filepath.Join(hsm, "tokens"), 0o700); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(hsm, "softhsm2.conf")
	body := fmt.Sprintf("directories.tokendir = %s\nobjectstore.backend = file\nlog.level = ERROR\n", filepath.Join(hsm, "tokens"))
	if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	pin, so := randHex(8), randHex(8)
	if err := os.WriteFile(filepath.Join(hsm, "pin"), []byte(pin), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("softhsm2-util", "--init-token", "--free", "--label", "ocv", "--pin", pin, "--so-pin", so)
	cmd.Env = append(os.Environ(), "SOFTHSM2_CONF="+conf)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("initialising SoftHSM token (is softhsm2 installed?): %v\n%s", err, out)
	}
	return conf
}

// StartEnclave starts (or restarts) the enclave and waits for its socket.
func (s *Stack) StartEnclave() {
	s.t.Helper()
	_ = os.Remove(s.SocketPath)
	s.enclave = s.run("enclave", Bin(s.t, "ocv-enclave"), s.enclaveEnv)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("unix", s.SocketPath); err == nil {
			c.Close()
			return
		}
		if s.enclave.exited() {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("enclave did not listen on %s; logs:\n%s", s.SocketPath, s.Logs())
}

// KillEnclave stops the enclave abruptly.
func (s *Stack) KillEnclave() {
	s.t.Helper()
	if s.enclave != nil {
		_ = s.enclave.cmd.Process.Kill()
		<-s.enclave.done
	}
}

// proc is a started child process.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (s *Stack) run(name, bin string, env []string) *proc {
	s.t.Helper()
	logPath := filepath.Join(s.Dir, name+".log")
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		s.t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(cleanEnv(), env...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("starting %s: %v", name, err)
	}
	s.mu.Lock()
	s.logs = append(s.logs, logPath)
	s.mu.Unlock()
	p := &proc{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); f.Close(); close(p.done) }()
	return p
}

// cleanEnv drops OCV_* and PG* variables of the test's environment.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if len(kv) >= 4 && (kv[:4] == "OCV_" || kv[:2] == "PG") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func (s *Stack) waitHTTP() {
	s.t.Helper()
	ca := filepath.Join(s.Dir, "tls", "ca.pem")
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if s.proxy.exited() {
			break
		}
		if pem, err := os.ReadFile(ca); err == nil && s.HTTP == nil {
			pool := x509.NewCertPool()
			if pool.AppendCertsFromPEM(pem) {
				s.HTTP = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
					TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, MaxIdleConnsPerHost: 32}}
			}
		}
		if s.HTTP != nil {
			if resp, err := s.HTTP.Get(s.BaseURL + "/v1/health"); err == nil {
				var h api.Health
				_ = json.NewDecoder(resp.Body).Decode(&h)
				resp.Body.Close()
				// Up with its database; the enclave may still be attesting
				// (or never will, with a wrong PCR0: WaitAttested).
				if resp.StatusCode == http.StatusOK || h.Checks.Database.Status == "ok" {
					return
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.t.Fatalf("proxy did not answer at %s; logs:\n%s", s.BaseURL, s.Logs())
}

// WaitAttested polls /v1/health/hsm until it answers 200.
func (s *Stack) WaitAttested() {
	s.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := s.HTTP.Get(s.BaseURL + "/v1/health/hsm"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.t.Fatalf("enclave never attested; logs:\n%s", s.Logs())
}

// Stop terminates both processes.
func (s *Stack) Stop() {
	for _, p := range []*proc{s.proxy, s.enclave} {
		if p == nil || p.exited() {
			continue
		}
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(15 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	}
}

// Logs returns everything both processes wrote.
func (s *Stack) Logs() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b bytes.Buffer
	seen := map[string]bool{}
	for _, p := range s.logs {
		if seen[p] {
			continue
		}
		seen[p] = true
		data, _ := os.ReadFile(p)
		fmt.Fprintf(&b, "==> %s <==\n%s\n", filepath.Base(p), data)
	}
	return b.String()
}

// Context returns a context bounded for one test step.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func freePort(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

func fileSHA384(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha512.Sum384(b)
	return hex.EncodeToString(sum[:]), nil
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
