package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ProcCPU is one process's CPU (user + system) over a measured window and
// per successful request. NA says why there is no figure; Seconds is still
// set when only the per-request figure is missing (no successful request).
type ProcCPU struct {
	Seconds      float64 `json:"seconds"`
	USPerRequest float64 `json:"us_per_request"`
	NA           string  `json:"na,omitempty"`
}

// CPUUse is one cell's CPU per request by process.
type CPUUse struct {
	Proxy    ProcCPU `json:"proxy"`
	Enclave  ProcCPU `json:"enclave"`
	Postgres ProcCPU `json:"postgres"` // the postmaster and all its children
	Server   ProcCPU `json:"server"`   // proxy + enclave + PostgreSQL; n/a when one of them is
	Bench    ProcCPU `json:"bench"`    // this process: the client (and, in floor rows, the floor's server)

	skipped bool // the server's processes were not measured (floor, in-process scenario)
}

// byRole returns the figure of a server role or the bench.
func (u *CPUUse) byRole(role string) *ProcCPU {
	switch role {
	case roleProxy:
		return &u.Proxy
	case roleEnclave:
		return &u.Enclave
	case rolePostgres:
		return &u.Postgres
	default:
		return &u.Bench
	}
}

// ProcInfo is how a server role was found, for the JSON report.
type ProcInfo struct {
	Role string `json:"role"`
	Pid  int    `json:"pid,omitempty"`
	NA   string `json:"na,omitempty"`
}

// cpuFigure turns two samples of a CPU counter (clock ticks) into seconds
// and microseconds per successful request.
func cpuFigure(startTicks, endTicks, requests uint64) ProcCPU {
	if endTicks < startTicks {
		return ProcCPU{NA: "CPU counter went backwards"}
	}
	f := ProcCPU{Seconds: float64(endTicks-startTicks) / clockTicks}
	if requests == 0 {
		f.NA = "no successful request"
		return f
	}
	f.USPerRequest = f.Seconds * 1e6 / float64(requests)
	return f
}

// cpuSample is the CPU counters of every measured role at one instant;
// a role that could not be read has its reason in errs instead.
type cpuSample struct {
	ticks map[string]uint64
	errs  map[string]string
}

// cpuUse computes a cell's figures from the samples at the start and the
// end of its window and its successful requests. The server figure is the
// sum of the three server roles and needs all of them.
func cpuUse(start, end cpuSample, requests uint64) CPUUse {
	var u CPUUse
	var sumStart, sumEnd uint64
	var missing []string
	for _, role := range append(slices.Clone(serverRoles), roleBench) {
		f := u.byRole(role)
		why := firstReason(start.errs[role], end.errs[role])
		if why != "" {
			*f = ProcCPU{NA: why}
		} else {
			*f = cpuFigure(start.ticks[role], end.ticks[role], requests)
		}
		if role == roleBench {
			continue
		}
		if why != "" || end.ticks[role] < start.ticks[role] {
			missing = append(missing, role)
			continue
		}
		sumStart += start.ticks[role]
		sumEnd += end.ticks[role]
	}
	if len(missing) > 0 {
		u.Server = ProcCPU{NA: "no figure for " + strings.Join(missing, ", ")}
	} else {
		u.Server = cpuFigure(sumStart, sumEnd, requests)
	}
	return u
}

func firstReason(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// cpuProbe samples the CPU of the stack's processes and of the bench.
type cpuProbe struct {
	fs      procFS
	groups  map[string]procGroup // the server roles found, and roleBench
	missing map[string]string    // the server roles not found, with the reason
}

// newCPUProbe finds the stack's processes (none when stack is false) and
// this process.
func newCPUProbe(fs procFS, set pidSettings, stack bool) *cpuProbe {
	p := &cpuProbe{fs: fs, groups: map[string]procGroup{}, missing: map[string]string{}}
	if stack {
		p.groups, p.missing = findGroups(fs, set)
	} else {
		for _, role := range serverRoles {
			p.missing[role] = "the stack is not contacted"
		}
	}
	self := os.Getpid()
	if s, err := fs.stat(self); err != nil {
		p.missing[roleBench] = err.Error()
	} else {
		p.groups[roleBench] = procGroup{role: roleBench, pid: self, start: s.start}
	}
	return p
}

// processes lists how each server role was found.
func (p *cpuProbe) processes() []ProcInfo {
	out := make([]ProcInfo, 0, len(serverRoles))
	for _, role := range serverRoles {
		out = append(out, ProcInfo{Role: role, Pid: p.groups[role].pid, NA: p.missing[role]})
	}
	return out
}

// sample reads every role's counter; with skip set, the server roles are
// not read and carry skip as their reason.
func (p *cpuProbe) sample(skip string) cpuSample {
	s := cpuSample{ticks: map[string]uint64{}, errs: map[string]string{}}
	for _, role := range append(slices.Clone(serverRoles), roleBench) {
		g, found := p.groups[role]
		switch {
		case skip != "" && role != roleBench:
			s.errs[role] = skip
		case !found:
			s.errs[role] = p.missing[role]
		default:
			t, err := g.ticks(p.fs)
			if err != nil {
				s.errs[role] = err.Error() + " during the run"
				continue
			}
			s.ticks[role] = t
		}
	}
	return s
}

// cpuWindow samples the counters at the start and the end of one measured
// window, in the background.
type cpuWindow struct {
	done       chan struct{}
	start, end cpuSample
	measured   bool   // both samples taken
	skip       string // why only the bench is measured; "" when all are
}

// watch samples at now+warmup and at now+warmup+duration, the window that
// run measures when it is called right after; interrupting ctx takes the
// end sample early (or none, before the window starts).
func (p *cpuProbe) watch(ctx context.Context, skip string, warmup, duration time.Duration) *cpuWindow {
	w := &cpuWindow{done: make(chan struct{}), skip: skip}
	from := time.Now().Add(warmup)
	go func() {
		defer close(w.done)
		if !sleepUntil(ctx, from) {
			return
		}
		w.start = p.sample(skip)
		sleepUntil(ctx, from.Add(duration))
		w.end = p.sample(skip)
		w.measured = true
	}()
	return w
}

// use waits for the window's samples and returns the figures for its
// successful requests.
func (w *cpuWindow) use(requests uint64) *CPUUse {
	<-w.done
	if !w.measured {
		return nil
	}
	u := cpuUse(w.start, w.end, requests)
	if w.skip != "" {
		u.skipped = true
		u.Server = ProcCPU{NA: w.skip}
	}
	return &u
}

// sleepUntil waits until t; false when ctx ended first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}

// measure runs one cell and attaches its CPU figures. skip, when set, is
// why the server's processes are not measured (an in-process scenario).
func measure(ctx context.Context, hc *http.Client, sc scenario, conc int, warmup, duration time.Duration, probe *cpuProbe, skip string) Result {
	if sc.local != nil && skip == "" {
		skip = "in-process scenario: the stack does no work"
	}
	w := probe.watch(ctx, skip, warmup, duration)
	res := run(ctx, hc, sc, conc, warmup, duration)
	res.CPU = w.use(res.OK)
	return res
}

// FloorRatio compares a cell with the floor (floor.go) at the same
// concurrency in the same run. The CPU ratios are 0 (omitted) when a
// figure is missing.
type FloorRatio struct {
	RPS float64 `json:"rps"` // req/s ÷ the floor's req/s
	// ServerCPU is the server's CPU per request (proxy + enclave +
	// PostgreSQL) ÷ the floor's (its server and client together).
	ServerCPU float64 `json:"server_cpu,omitempty"`
	// TotalCPU is (server + bench) CPU per request ÷ the floor's: both
	// sides include the same client, like for like.
	TotalCPU float64 `json:"total_cpu,omitempty"`
}

// floorRatios sets Floor on every result that has a floor result at its
// concurrency.
func floorRatios(results []Result) {
	for i := range results {
		r := &results[i]
		if r.Scenario == floorScenarioName {
			continue
		}
		f, ok := findResult(results, floorScenarioName, r.Concurrency)
		if !ok || f.RPS <= 0 {
			continue
		}
		fr := &FloorRatio{RPS: r.RPS / f.RPS}
		if r.CPU != nil && f.CPU != nil && f.CPU.Bench.NA == "" && f.CPU.Bench.USPerRequest > 0 {
			floor := f.CPU.Bench.USPerRequest
			if r.CPU.Server.NA == "" {
				fr.ServerCPU = r.CPU.Server.USPerRequest / floor
				if r.CPU.Bench.NA == "" {
					fr.TotalCPU = (r.CPU.Server.USPerRequest + r.CPU.Bench.USPerRequest) / floor
				}
			}
		}
		r.Floor = fr
	}
}

// usCell renders a per-request figure: "191 µs", or "n/a".
func usCell(f ProcCPU) string {
	if f.NA != "" {
		return "n/a"
	}
	return strconv.FormatFloat(f.USPerRequest, 'f', 0, 64) + " µs"
}

func ratioCell(v float64) string {
	if v <= 0 {
		return "n/a"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// writeCPU prints which processes were measured, the CPU-per-request
// table and the reasons for every n/a in it; nothing when no cell has CPU
// figures.
func writeCPU(w io.Writer, procs []ProcInfo, results []Result) {
	if !slices.ContainsFunc(results, func(r Result) bool { return r.CPU != nil }) {
		return
	}
	fmt.Fprintf(w, "\nCPU per request: user + system CPU of each process over the measured window (/proc/<pid>/stat, %d ticks/s), "+
		"divided by the window's 2xx answers. PostgreSQL is the postmaster and all its children, backends that exited "+
		"in the window included; server = proxy + enclave + PostgreSQL; bench is this process (the client; in the %s rows "+
		"also the floor's server). %s is a bare TLS hello-world server inside the bench process, same client, TLS and "+
		"protocol; the ratios divide by its req/s and its CPU per request at the same concurrency.\n\n",
		clockTicks, floorScenarioName, floorScenarioName)
	var pids []string
	for _, p := range procs {
		if p.NA == "" {
			pids = append(pids, p.Role+" pid "+strconv.Itoa(p.Pid))
		}
	}
	if len(pids) > 0 {
		fmt.Fprintf(w, "Measured: %s.\n\n", strings.Join(pids, ", "))
	}
	fmt.Fprintln(w, "| scenario | concurrency | req/s | proxy | enclave | PostgreSQL | server | bench | req/s ÷ floor | server CPU ÷ floor |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	var notes []string
	note := func(role string, f ProcCPU) {
		if f.NA != "" {
			if n := role + ": " + f.NA; !slices.Contains(notes, n) {
				notes = append(notes, n)
			}
		}
	}
	for _, r := range results {
		if r.CPU == nil {
			continue
		}
		u := r.CPU
		cells := []string{usCell(u.Proxy), usCell(u.Enclave), usCell(u.Postgres), usCell(u.Server), usCell(u.Bench)}
		if u.skipped {
			cells[0], cells[1], cells[2], cells[3] = "—", "—", "—", "—"
		}
		rps, srv := "—", "—"
		if r.Floor != nil {
			rps, srv = ratioCell(r.Floor.RPS), ratioCell(r.Floor.ServerCPU)
		}
		fmt.Fprintf(w, "| %s | %d | %.1f | %s | %s | %s | %s | %s | %s | %s |\n", r.Scenario, r.Concurrency, r.RPS,
			cells[0], cells[1], cells[2], cells[3], cells[4], rps, srv)
		if !u.skipped {
			note("proxy", u.Proxy)
			note("enclave", u.Enclave)
			note("PostgreSQL", u.Postgres)
		}
		note("bench", u.Bench)
	}
	if len(notes) > 0 {
		fmt.Fprintln(w, "\nn/a:")
		for _, n := range notes {
			fmt.Fprintf(w, "- %s\n", n)
		}
	}
}
