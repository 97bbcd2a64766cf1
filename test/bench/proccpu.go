package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ, the unit of the CPU times in /proc/<pid>/stat
// (sysconf(_SC_CLK_TCK)): 100 on Linux, a fixed part of its ABI.
const clockTicks = 100

// The roles whose CPU the report shows, with the executable name (the
// kernel's comm, at most 15 bytes) each is found by.
const (
	roleProxy    = "proxy"
	roleEnclave  = "enclave"
	rolePostgres = "postgres"
	roleBench    = "bench"
)

// roleComm is the process name /proc scanning looks for.
var roleComm = map[string]string{roleProxy: "ocv-proxy", roleEnclave: "ocv-enclave", rolePostgres: "postgres"}

// serverRoles are the stack's processes, in report order.
var serverRoles = []string{roleProxy, roleEnclave, rolePostgres}

// errProcGone means a measured process exited, or its pid now names
// another process.
var errProcGone = errors.New("process exited")

// procStat is what the report needs of one /proc/<pid>/stat line.
type procStat struct {
	pid, ppid      int
	comm           string
	utime, stime   uint64 // the process's own CPU, clock ticks
	cutime, cstime uint64 // CPU of its children that it has waited for, clock ticks
	start          uint64 // starttime (ticks after boot): tells a reused pid apart
}

// total is the process's own CPU plus that of its reaped children.
func (s procStat) total() uint64 { return s.utime + s.stime + s.cutime + s.cstime }

// parseStat parses a /proc/<pid>/stat line (proc(5)). The name in
// parentheses may hold spaces and parentheses itself, so the fields are
// counted from the last ')'.
func parseStat(line string) (procStat, error) {
	open := strings.IndexByte(line, '(')
	closing := strings.LastIndexByte(line, ')')
	if open < 1 || closing < open {
		return procStat{}, fmt.Errorf("parsing /proc stat: no (comm) in %.40q", line)
	}
	var s procStat
	var err error
	if s.pid, err = strconv.Atoi(strings.TrimSpace(line[:open])); err != nil {
		return procStat{}, fmt.Errorf("parsing /proc stat pid: %w", err)
	}
	s.comm = line[open+1 : closing]
	// After ")": state(3) ppid(4) … utime(14) stime(15) cutime(16) cstime(17) … starttime(22).
	f := strings.Fields(line[closing+1:])
	if len(f) < 20 {
		return procStat{}, fmt.Errorf("parsing /proc stat of %d: %d fields after comm, want at least 20", s.pid, len(f))
	}
	if s.ppid, err = strconv.Atoi(f[1]); err != nil {
		return procStat{}, fmt.Errorf("parsing /proc stat ppid of %d: %w", s.pid, err)
	}
	for _, p := range []struct {
		dst *uint64
		i   int
	}{{&s.utime, 11}, {&s.stime, 12}, {&s.cutime, 13}, {&s.cstime, 14}, {&s.start, 19}} {
		if *p.dst, err = strconv.ParseUint(f[p.i], 10, 64); err != nil {
			return procStat{}, fmt.Errorf("parsing /proc stat field %d of %d: %w", p.i+3, s.pid, err)
		}
	}
	return s, nil
}

// procFS reads a proc file system mounted at root ("/proc"; a fixture
// directory in tests).
type procFS struct{ root string }

// stat reads and parses /proc/<pid>/stat.
func (fs procFS) stat(pid int) (procStat, error) {
	b, err := os.ReadFile(filepath.Join(fs.root, strconv.Itoa(pid), "stat"))
	if err != nil {
		return procStat{}, fmt.Errorf("reading stat of pid %d: %w", pid, err)
	}
	return parseStat(strings.TrimSpace(string(b)))
}

// all returns the stat of every process; processes that exit while the
// directory is read are skipped.
func (fs procFS) all() ([]procStat, error) {
	ents, err := os.ReadDir(fs.root)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", fs.root, err)
	}
	var out []procStat
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		if s, err := fs.stat(pid); err == nil {
			out = append(out, s)
		}
	}
	return out, nil
}

// cwd returns the process's working directory.
func (fs procFS) cwd(pid int) (string, error) {
	return os.Readlink(filepath.Join(fs.root, strconv.Itoa(pid), "cwd"))
}

// procGroup is one measured process: with children set, its live child
// processes count too (PostgreSQL's backends and workers).
type procGroup struct {
	role     string
	pid      int
	start    uint64 // starttime when found
	children bool
}

// ticks returns the group's CPU so far in clock ticks: the process's own
// and its reaped children's times (utime+stime+cutime+cstime), plus, with
// children, the same of every live child. A child that exits between two
// samples moves from the live sum into the parent's cutime/cstime once
// reaped, so the difference of two samples counts every child's CPU in the
// window, including children that came and went inside it. Only a child
// that exits in the moment between reading the children and the parent
// can be counted twice or missed. Finding the children reads the stat of
// every process on the machine (a few milliseconds of the bench's own CPU
// per sample, two samples per window).
func (g procGroup) ticks(fs procFS) (uint64, error) {
	var kids uint64
	if g.children {
		all, err := fs.all()
		if err != nil {
			return 0, err
		}
		for _, s := range all {
			if s.ppid == g.pid && s.pid != g.pid {
				kids += s.total()
			}
		}
	}
	s, err := fs.stat(g.pid)
	if err != nil || s.start != g.start {
		return 0, fmt.Errorf("%w: %s pid %d", errProcGone, g.role, g.pid)
	}
	return s.total() + kids, nil
}

// pidSettings is how the stack's processes are named to the bench: pids
// from flags or OCV_BENCH_PIDS (0 = find), PostgreSQL's data directory,
// and the checkout the stack runs in.
type pidSettings struct {
	pids   map[string]int
	pgData string // the cluster's data directory (postmaster.pid)
	cwd    string // the checkout: `make run` starts the binaries there
}

// parsePidList parses OCV_BENCH_PIDS: "proxy=123,enclave=456,postgres=789"
// (any subset; empty is none).
func parsePidList(s string) (map[string]int, error) {
	out := map[string]int{}
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		role, v, ok := strings.Cut(f, "=")
		pid, err := strconv.Atoi(strings.TrimSpace(v))
		role = strings.TrimSpace(role)
		if !ok || err != nil || pid < 1 || !slices.Contains(serverRoles, role) {
			return nil, fmt.Errorf("%w: OCV_BENCH_PIDS: %q is not proxy|enclave|postgres=<pid>", ErrInvalidFlag, f)
		}
		out[role] = pid
	}
	return out, nil
}

// findGroups names the processes to measure for each server role; a role
// that cannot be found gets the reason instead, and the run goes on
// without its figure.
func findGroups(fs procFS, set pidSettings) (map[string]procGroup, map[string]string) {
	found := map[string]procGroup{}
	missing := map[string]string{}
	var all []procStat // read once, on first need
	var allErr error
	for _, role := range serverRoles {
		pid, how := set.pids[role], "given"
		var err error
		switch {
		case pid > 0:
		case role == rolePostgres:
			pid, err = postmasterPid(fs, set.pgData)
			how = "postmaster.pid"
		default:
			if all == nil && allErr == nil {
				all, allErr = fs.all()
			}
			if err = allErr; err == nil {
				pid, err = scanFor(fs, all, role, set.cwd)
			}
			how = "found"
		}
		if err != nil {
			missing[role] = err.Error()
			continue
		}
		s, err := fs.stat(pid)
		if err != nil {
			missing[role] = fmt.Sprintf("%s pid %d: %v", how, pid, err)
			continue
		}
		found[role] = procGroup{role: role, pid: pid, start: s.start, children: role == rolePostgres}
	}
	return found, missing
}

// postmasterPid reads the postmaster's pid from the first line of
// <data>/postmaster.pid and checks that it is a live postgres process
// working in that directory (the postmaster's cwd is its data directory),
// so that a stale file or another cluster is not measured.
func postmasterPid(fs procFS, data string) (int, error) {
	if data == "" {
		return 0, errors.New("no PostgreSQL data directory (pass -pg-data-dir or -pg-pid)")
	}
	b, err := os.ReadFile(filepath.Join(data, "postmaster.pid"))
	if err != nil {
		return 0, fmt.Errorf("reading the postmaster's pid (is the cluster running? else pass -pg-pid): %w", err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid < 1 {
		return 0, fmt.Errorf("%s/postmaster.pid: no pid on its first line", data)
	}
	s, err := fs.stat(pid)
	if err != nil {
		return 0, fmt.Errorf("%s/postmaster.pid names pid %d, which is not running (stale file?)", data, pid)
	}
	if s.comm != roleComm[rolePostgres] {
		return 0, fmt.Errorf("%s/postmaster.pid names pid %d, which is %q, not postgres (stale file?)", data, pid, s.comm)
	}
	if cwd, err := fs.cwd(pid); err == nil && !sameDir(cwd, data) {
		return 0, fmt.Errorf("postgres pid %d of %s/postmaster.pid serves %s (stale file?)", pid, data, cwd)
	}
	return pid, nil
}

// scanFor picks the one process named after role among all whose working
// directory is cwd (the checkout `make run` starts the binaries in), so
// that other checkouts' stacks and test binaries are not measured.
func scanFor(fs procFS, all []procStat, role, cwd string) (int, error) {
	name := roleComm[role]
	var here, elsewhere []int
	for _, s := range all {
		if s.comm != name {
			continue
		}
		if dir, err := fs.cwd(s.pid); err == nil && sameDir(dir, cwd) {
			here = append(here, s.pid)
		} else {
			elsewhere = append(elsewhere, s.pid)
		}
	}
	flag := "-" + role + "-pid"
	switch {
	case len(here) == 1:
		return here[0], nil
	case len(here) > 1:
		return 0, fmt.Errorf("several %s processes in %s (pids %s); pass %s", name, cwd, joinInts(here), flag)
	case len(elsewhere) > 0:
		return 0, fmt.Errorf("no %s runs in %s (pids %s run elsewhere); pass %s", name, cwd, joinInts(elsewhere), flag)
	default:
		return 0, fmt.Errorf("no process named %s; pass %s", name, flag)
	}
}

// sameDir compares two directory paths after resolving symbolic links
// (.ocv/pg may link to the postgres user's home); a path that cannot be
// resolved is compared as written.
func sameDir(a, b string) bool {
	resolve := func(p string) string {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	return resolve(a) == resolve(b)
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}
