package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Flag bounds: generous, but a typo cannot start an unbounded run.
const (
	maxConcurrency = 1024
	maxDuration    = 24 * time.Hour
	maxReadKeys    = 1_000_000
	maxValueSize   = 512 << 10 // the API's MaxValueBytes
	setupTimeout   = 5 * time.Minute
	minPrewriters  = 16
)

// config is the parsed and validated command line.
type config struct {
	url, cacert         string
	target              *url.URL // url, checked
	duration, warmup    time.Duration
	timeout             time.Duration
	concurrency         []int
	scenarios           []string
	valueSize, readKeys int
	h2, json, remote    bool
	softhsmModule       string // the SoftHSM2 library hsmraw opens
	floor               bool   // measure the TLS hello-world floor (floor.go)
	pids                pidSettings
}

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := bench(ctx, cfg, commandLine(os.Args[1:])); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		stop()
		os.Exit(1)
	}
}

// envOr returns the environment variable key, or def when it is unset or
// empty; `make bench` passes OCV_BENCH_URL and OCV_BENCH_CACERT.
func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func parseFlags(args []string) (config, error) {
	var cfg config
	var conc, scen string
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.StringVar(&cfg.url, "url", envOr("OCV_BENCH_URL", "https://127.0.0.1:8443"), "base URL of the stack (env OCV_BENCH_URL)")
	fs.StringVar(&cfg.cacert, "cacert", envOr("OCV_BENCH_CACERT", ".ocv/tls/ca.pem"), "CA certificate to trust; empty uses the system roots (env OCV_BENCH_CACERT)")
	fs.DurationVar(&cfg.duration, "duration", 10*time.Second, "measured time per scenario and concurrency level")
	fs.DurationVar(&cfg.warmup, "warmup", 2*time.Second, "unmeasured warm-up before each measured window")
	fs.DurationVar(&cfg.timeout, "timeout", 30*time.Second, "per-request timeout")
	fs.StringVar(&conc, "concurrency", "1,16", "comma-separated numbers of closed-loop workers")
	fs.StringVar(&scen, "scenarios", defaultScenarios, "comma-separated scenarios: "+strings.Join(knownScenarios, ", "))
	fs.IntVar(&cfg.valueSize, "value-size", 64, "secret value size in bytes")
	fs.IntVar(&cfg.readKeys, "read-keys", 1000, "secrets written before the read scenario and read round-robin")
	fs.BoolVar(&cfg.h2, "h2", false, "use HTTP/2 (one multiplexed connection) instead of HTTP/1.1 keep-alive connections")
	fs.BoolVar(&cfg.json, "json", false, "also print the results as JSON")
	fs.BoolVar(&cfg.remote, "allow-remote", false, "allow a -url that is not a loopback address")
	fs.StringVar(&cfg.softhsmModule, "softhsm-module", envOr("OCV_SOFTHSM2_MODULE", defaultSoftHSMModule),
		"SoftHSM2 PKCS#11 library for hsmraw (env OCV_SOFTHSM2_MODULE)")
	fs.BoolVar(&cfg.floor, "floor", true, "measure a bare TLS hello-world server in this process as the floor (floor.go)")
	var proxyPid, enclavePid, pgPid int
	fs.IntVar(&proxyPid, "proxy-pid", 0, "pid of ocv-proxy for CPU figures (0: OCV_BENCH_PIDS, else the ocv-proxy running in the current directory)")
	fs.IntVar(&enclavePid, "enclave-pid", 0, "pid of ocv-enclave for CPU figures (0: OCV_BENCH_PIDS, else the ocv-enclave running in the current directory)")
	fs.IntVar(&pgPid, "pg-pid", 0, "pid of the PostgreSQL postmaster for CPU figures (0: OCV_BENCH_PIDS, else <pg-data-dir>/postmaster.pid)")
	fs.StringVar(&cfg.pids.pgData, "pg-data-dir", envOr("OCV_BENCH_PGDATA", ".ocv/pg/data"),
		"data directory of the stack's PostgreSQL cluster, whose postmaster.pid names the postmaster (env OCV_BENCH_PGDATA)")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("%w: unexpected argument %q", ErrInvalidFlag, fs.Arg(0))
	}
	var err error
	if cfg.pids.pids, err = parsePidList(os.Getenv("OCV_BENCH_PIDS")); err != nil {
		return config{}, err
	}
	for _, f := range []struct {
		role, flag string
		pid        int
	}{{roleProxy, "-proxy-pid", proxyPid}, {roleEnclave, "-enclave-pid", enclavePid}, {rolePostgres, "-pg-pid", pgPid}} {
		if f.pid < 0 {
			return config{}, fmt.Errorf("%w: %s must not be negative", ErrInvalidFlag, f.flag)
		}
		if f.pid > 0 { // a flag wins over OCV_BENCH_PIDS
			cfg.pids.pids[f.role] = f.pid
		}
	}
	if cfg.pids.cwd, err = os.Getwd(); err != nil {
		return config{}, fmt.Errorf("finding the current directory: %w", err)
	}
	if cfg.target, err = checkTarget(cfg.url, cfg.remote); err != nil {
		return config{}, err
	}
	if cfg.concurrency, err = parseConcurrency(conc); err != nil {
		return config{}, err
	}
	if cfg.scenarios, err = parseScenarios(scen); err != nil {
		return config{}, err
	}
	switch {
	case cfg.duration <= 0 || cfg.duration > maxDuration:
		return config{}, fmt.Errorf("%w: -duration must be in (0, %s]", ErrInvalidFlag, maxDuration)
	case cfg.warmup < 0 || cfg.warmup > maxDuration:
		return config{}, fmt.Errorf("%w: -warmup must be in [0, %s]", ErrInvalidFlag, maxDuration)
	case cfg.timeout <= 0 || cfg.timeout > 10*time.Minute:
		return config{}, fmt.Errorf("%w: -timeout must be in (0, 10m]", ErrInvalidFlag)
	case cfg.valueSize < 1 || cfg.valueSize > maxValueSize:
		return config{}, fmt.Errorf("%w: -value-size must be in [1, %d]", ErrInvalidFlag, maxValueSize)
	case cfg.readKeys < 1 || cfg.readKeys > maxReadKeys:
		return config{}, fmt.Errorf("%w: -read-keys must be in [1, %d]", ErrInvalidFlag, maxReadKeys)
	case slices.Contains(cfg.scenarios, "hsmraw") && cfg.softhsmModule == "":
		return config{}, fmt.Errorf("%w: hsmraw needs -softhsm-module", ErrInvalidFlag)
	}
	return cfg, nil
}

func parseConcurrency(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > maxConcurrency {
			return nil, fmt.Errorf("%w: -concurrency: %q is not a number in [1, %d]", ErrInvalidFlag, f, maxConcurrency)
		}
		// Write paths embed the level: a repeated level would overwrite.
		if slices.Contains(out, n) {
			return nil, fmt.Errorf("%w: -concurrency lists %d twice", ErrInvalidFlag, n)
		}
		out = append(out, n)
	}
	return out, nil
}

// knownScenarios are the names -scenarios accepts: the secret scenarios,
// the pipeline scenarios of pipeline.go, the signing scenarios of
// signing.go and the raw HSM rate of hsmraw.go.
var knownScenarios = []string{"write", "read", "health", "authget", "personalsign", "txsign", "hsmraw", h2floodName}

// defaultScenarios is what runs without -scenarios.
const defaultScenarios = "write,read,personalsign,txsign,hsmraw"

func parseScenarios(s string) ([]string, error) {
	var out []string
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		if !slices.Contains(knownScenarios, f) {
			return nil, fmt.Errorf("%w: -scenarios: unknown scenario %q (want %s)", ErrInvalidFlag, f,
				strings.Join(knownScenarios, ", "))
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out, nil
}

// commandLine renders the invocation as a shell command that reproduces it.
func commandLine(args []string) string {
	parts := []string{"go", "run", "./test/bench"}
	for _, a := range args {
		if a == "" || strings.ContainsFunc(a, func(r rune) bool {
			return !strings.ContainsRune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,:/@%+", r)
		}) {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

// bench runs the whole matrix and prints the report. Interrupting it
// (Ctrl-C) ends the current cell early and prints what was measured.
func bench(ctx context.Context, cfg config, cmd string) (err error) {
	var hc *http.Client // nil when no scenario talks to the stack (hsmraw alone)
	if needsStack(cfg.scenarios) {
		tr, err := newTransport(cfg.cacert, max(slices.Max(cfg.concurrency), minPrewriters), cfg.h2)
		if err != nil {
			return err
		}
		defer tr.CloseIdleConnections()
		hc = &http.Client{
			Transport: tr,
			Timeout:   cfg.timeout,
			// Only the given URL is loaded: a redirect is an answer, never followed.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}

	runCtx, stopRenewing := context.WithCancel(ctx)
	defer stopRenewing()
	setupCtx, cancelSetup := context.WithTimeout(ctx, setupTimeout)
	defer cancelSetup()
	tg, err := setUp(setupCtx, runCtx, cfg, hc)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, tg.Close()) }()
	cancelSetup()

	rep := Report{Command: cmd, Started: time.Now(), URL: cfg.target.String(), Protocol: tg.proto, Duration: cfg.duration.String(),
		Warmup: cfg.warmup.String(), Value: cfg.valueSize, ReadKeys: cfg.readKeys}
	probe := newCPUProbe(procFS{root: "/proc"}, cfg.pids, needsStack(cfg.scenarios))
	rep.Processes = probe.processes()
	for _, p := range rep.Processes {
		if p.NA != "" {
			logf("no CPU figures for %s: %s", p.Role, p.NA)
		} else {
			logf("CPU of %s: pid %d", p.Role, p.Pid)
		}
	}
	if cfg.floor && needsStack(cfg.scenarios) {
		floor, err := measureFloor(ctx, cfg, probe)
		if err != nil {
			return err
		}
		rep.Results = append(rep.Results, floor...)
	}
	for _, name := range cfg.scenarios {
		sc, err := tg.scenario(name)
		if err != nil {
			return err
		}
		for _, conc := range cfg.concurrency {
			if ctx.Err() != nil {
				break
			}
			logf("%s at concurrency %d: %s warm-up + %s", sc.name, conc, cfg.warmup, cfg.duration)
			res := measure(ctx, hc, sc, conc, cfg.warmup, cfg.duration, probe, "")
			if res.OK == 0 {
				logf("%s at concurrency %d: no successful request (errors %s)", sc.name, conc, errorCell(res.Errors))
			}
			rep.Results = append(rep.Results, res)
		}
	}
	rep.Ratios = signingRatios(rep.Results)
	floorRatios(rep.Results)
	var failed uint64
	for _, r := range rep.Results {
		failed += r.Requests - r.OK
	}
	if failed > 0 {
		logf("%d requests failed; see the errors column", failed)
	}
	writeMarkdown(os.Stdout, rep)
	writeFloodRatios(os.Stdout, rep.Results)
	if cfg.json {
		if err := writeJSON(os.Stdout, rep); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted; the table covers what was measured: %w", ctx.Err())
	}
	return nil
}

// measureFloor runs the TLS hello-world floor (floor.go) at every
// concurrency level of cfg, with the stack's client settings.
func measureFloor(ctx context.Context, cfg config, probe *cpuProbe) (_ []Result, err error) {
	floor, err := startFloor(ctx, max(slices.Max(cfg.concurrency), minPrewriters), cfg.h2, cfg.timeout)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, floor.Close()) }()
	sc := floor.scenario()
	var out []Result
	for _, conc := range cfg.concurrency {
		if ctx.Err() != nil {
			break
		}
		logf("%s (%s) at concurrency %d: %s warm-up + %s", sc.name, floor.proto, conc, cfg.warmup, cfg.duration)
		out = append(out, measure(ctx, floor.hc, sc, conc, cfg.warmup, cfg.duration, probe,
			"floor: its server runs inside the bench process"))
	}
	return out, nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}
