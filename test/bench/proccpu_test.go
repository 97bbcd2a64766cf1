package main

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// statLine builds a /proc/<pid>/stat line with the given fields and
// plausible values elsewhere.
func statLine(pid int, comm string, ppid int, utime, stime, cutime, cstime, start uint64) string {
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	return strconv.Itoa(pid) + " (" + comm + ") S " + strconv.Itoa(ppid) + " 100 100 0 -1 4194560 5000 0 0 0 " +
		u(utime) + " " + u(stime) + " " + u(cutime) + " " + u(cstime) + " 20 0 12 0 " + u(start) +
		" 1500000000 3000 18446744073709551615 1 1 0 0 0 0 0 16781312 16390 0 0 0 17 1 0 0 0 0 0"
}

func TestParseStat(t *testing.T) {
	tests := map[string]struct {
		line    string
		want    procStat
		wantErr bool
	}{
		// A real line of a Go binary (values of a running ocv-proxy).
		"ok real": {
			line: "4242 (ocv-proxy) S 4200 4200 3100 34816 4200 1077936384 53841 0 0 0 1917 483 0 0 20 0 9 0 1234 1735192576 6891 18446744073709551615 4194304 25178693 140727772395904 0 0 0 0 0 2143420159 0 0 0 17 0 0 0 0 0 0 27326464 27812416 46104576 140727772398399 140727772398413 140727772398413 140727772401638 0",
			want: procStat{pid: 4242, ppid: 4200, comm: "ocv-proxy", utime: 1917, stime: 483, start: 1234},
		},
		"ok postmaster with reaped children": {
			line: statLine(77, "postgres", 1, 10, 20, 3000, 400, 99),
			want: procStat{pid: 77, ppid: 1, comm: "postgres", utime: 10, stime: 20, cutime: 3000, cstime: 400, start: 99},
		},
		// The name is the program's choice: spaces and parentheses in it
		// must not shift the fields.
		"ok comm with spaces and parens": {
			line: statLine(5, "a) b (c", 2, 1, 2, 3, 4, 5),
			want: procStat{pid: 5, ppid: 2, comm: "a) b (c", utime: 1, stime: 2, cutime: 3, cstime: 4, start: 5},
		},
		"fail empty":           {line: "", wantErr: true},
		"fail no comm":         {line: "12 S 1 2 3", wantErr: true},
		"fail bad pid":         {line: "x (a) S 1 1 1 0 -1 0 0 0 0 0 1 2 3 4 20 0 1 0 5", wantErr: true},
		"fail truncated":       {line: "12 (a) S 1 1 1 0 -1 0 0 0 0 0 1 2 3 4 20 0 1 0", wantErr: true},
		"fail negative cutime": {line: "12 (a) S 1 1 1 0 -1 0 0 0 0 0 1 2 -3 4 20 0 1 0 5", wantErr: true},
		"fail bad utime":       {line: "12 (a) S 1 1 1 0 -1 0 0 0 0 0 x 2 3 4 20 0 1 0 5", wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := parseStat(tc.line)
			if tc.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// fakeProc is a fixture /proc: pid → stat line and cwd.
type fakeProc struct {
	stat string
	cwd  string
}

func writeFakeProc(t *testing.T, procs map[int]fakeProc) procFS {
	t.Helper()
	root := t.TempDir()
	for pid, p := range procs {
		dir := filepath.Join(root, strconv.Itoa(pid))
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "stat"), []byte(p.stat+"\n"), 0o644))
		if p.cwd != "" {
			require.NoError(t, os.Symlink(p.cwd, filepath.Join(dir, "cwd")))
		}
	}
	// Entries that are not processes are ignored.
	require.NoError(t, os.WriteFile(filepath.Join(root, "uptime"), []byte("1 1\n"), 0o644))
	return procFS{root: root}
}

func TestGroupTicks(t *testing.T) {
	fs := writeFakeProc(t, map[int]fakeProc{
		100: {stat: statLine(100, "postgres", 1, 10, 5, 200, 50, 7)},    // postmaster, 265 with reaped children
		101: {stat: statLine(101, "postgres", 100, 30, 10, 0, 0, 8)},    // backend
		102: {stat: statLine(102, "postgres", 100, 1, 1, 2, 0, 9)},      // checkpointer (reaped a child of its own)
		200: {stat: statLine(200, "postgres", 1, 999, 999, 0, 0, 10)},   // another cluster
		201: {stat: statLine(201, "postgres", 200, 999, 999, 0, 0, 11)}, // its backend
		300: {stat: statLine(300, "ocv-proxy", 1, 70, 30, 1, 1, 12)},
	})
	tests := map[string]struct {
		g       procGroup
		want    uint64
		wantErr error
	}{
		"ok postgres with live children": {g: procGroup{role: rolePostgres, pid: 100, start: 7, children: true}, want: 265 + 40 + 4},
		"ok postmaster alone":            {g: procGroup{role: rolePostgres, pid: 100, start: 7}, want: 265},
		"ok proxy":                       {g: procGroup{role: roleProxy, pid: 300, start: 12}, want: 102},
		"fail exited":                    {g: procGroup{role: roleProxy, pid: 301, start: 12}, wantErr: errProcGone},
		"fail pid reused":                {g: procGroup{role: roleProxy, pid: 300, start: 13}, wantErr: errProcGone},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := tc.g.ticks(fs)
			require.ErrorIs(t, err, tc.wantErr)
			require.Equal(t, tc.want, got)
		})
	}
}

// TestGroupTicksChildExits follows a backend that exits between two
// samples: its CPU moves from the live sum into the postmaster's cutime and
// counts once.
func TestGroupTicksChildExits(t *testing.T) {
	g := procGroup{role: rolePostgres, pid: 100, start: 7, children: true}
	before := writeFakeProc(t, map[int]fakeProc{
		100: {stat: statLine(100, "postgres", 1, 10, 5, 200, 50, 7)},
		101: {stat: statLine(101, "postgres", 100, 30, 10, 0, 0, 8)},
	})
	after := writeFakeProc(t, map[int]fakeProc{
		// 101 used 20 more ticks, exited and was reaped; 103 started and used 6.
		100: {stat: statLine(100, "postgres", 1, 11, 5, 250, 60, 7)},
		103: {stat: statLine(103, "postgres", 100, 4, 2, 0, 0, 20)},
	})
	t0, err := g.ticks(before)
	require.NoError(t, err)
	t1, err := g.ticks(after)
	require.NoError(t, err)
	require.Equal(t, uint64(1+20+6), t1-t0)
}

func TestFindGroups(t *testing.T) {
	checkout := t.TempDir()
	other := t.TempDir()
	pgData := filepath.Join(checkout, "pgdata")
	require.NoError(t, os.MkdirAll(pgData, 0o700))
	otherData := filepath.Join(other, "pgdata")
	require.NoError(t, os.MkdirAll(otherData, 0o700))
	writePid := func(dir string, pid int) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "postmaster.pid"),
			[]byte(strconv.Itoa(pid)+"\n"+dir+"\n1764000000\n54329\n"), 0o600))
	}
	writePid(pgData, 100)
	writePid(otherData, 300) // names the proxy: a stale file
	procs := map[int]fakeProc{
		100: {stat: statLine(100, "postgres", 1, 1, 1, 0, 0, 7), cwd: pgData},
		101: {stat: statLine(101, "postgres", 100, 1, 1, 0, 0, 8), cwd: pgData},
		200: {stat: statLine(200, "postgres", 1, 1, 1, 0, 0, 9), cwd: "/var/lib/postgresql/15/main"},
		300: {stat: statLine(300, "ocv-proxy", 1, 1, 1, 0, 0, 10), cwd: checkout},
		301: {stat: statLine(301, "ocv-proxy", 1, 1, 1, 0, 0, 11), cwd: other},
		400: {stat: statLine(400, "ocv-enclave", 1, 1, 1, 0, 0, 12), cwd: other},
	}
	fs := writeFakeProc(t, procs)

	tests := map[string]struct {
		set         pidSettings
		wantPids    map[string]int
		wantMissing []string
	}{
		"ok found by cwd and postmaster.pid": {
			set:         pidSettings{pgData: pgData, cwd: checkout},
			wantPids:    map[string]int{roleProxy: 300, rolePostgres: 100},
			wantMissing: []string{roleEnclave}, // only another checkout's enclave runs
		},
		"ok given pids win": {
			set:      pidSettings{pids: map[string]int{roleProxy: 301, roleEnclave: 400, rolePostgres: 200}, pgData: pgData, cwd: checkout},
			wantPids: map[string]int{roleProxy: 301, roleEnclave: 400, rolePostgres: 200},
		},
		"ok other checkout": {
			set:         pidSettings{pgData: otherData, cwd: other},
			wantPids:    map[string]int{roleProxy: 301, roleEnclave: 400},
			wantMissing: []string{rolePostgres}, // its postmaster.pid names a proxy
		},
		"fail nothing here": {
			set:         pidSettings{pgData: filepath.Join(checkout, "none"), cwd: "/nowhere"},
			wantPids:    map[string]int{},
			wantMissing: []string{roleProxy, roleEnclave, rolePostgres},
		},
		"fail given pid not running": {
			set:         pidSettings{pids: map[string]int{roleProxy: 999}, pgData: pgData, cwd: checkout},
			wantPids:    map[string]int{rolePostgres: 100},
			wantMissing: []string{roleProxy, roleEnclave},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			found, missing := findGroups(fs, tc.set)
			got := map[string]int{}
			for role, g := range found {
				got[role] = g.pid
				require.Equal(t, role == rolePostgres, g.children)
				require.NotZero(t, g.start)
			}
			require.Equal(t, tc.wantPids, got)
			require.Len(t, missing, len(tc.wantMissing))
			for _, role := range tc.wantMissing {
				require.NotEmpty(t, missing[role], role)
			}
		})
	}
}

func TestScanForAmbiguous(t *testing.T) {
	dir := t.TempDir()
	fs := writeFakeProc(t, map[int]fakeProc{
		1: {stat: statLine(1, "ocv-proxy", 0, 1, 1, 0, 0, 1), cwd: dir},
		2: {stat: statLine(2, "ocv-proxy", 0, 1, 1, 0, 0, 2), cwd: dir},
	})
	all, err := fs.all()
	require.NoError(t, err)
	_, err = scanFor(fs, all, roleProxy, dir)
	require.ErrorContains(t, err, "several ocv-proxy processes")
	require.ErrorContains(t, err, "-proxy-pid")
}

func TestParsePidList(t *testing.T) {
	tests := map[string]struct {
		in      string
		want    map[string]int
		wantErr bool
	}{
		"ok empty":      {in: "", want: map[string]int{}},
		"ok all":        {in: "proxy=1, enclave=2,postgres=3", want: map[string]int{roleProxy: 1, roleEnclave: 2, rolePostgres: 3}},
		"ok subset":     {in: "postgres=42,", want: map[string]int{rolePostgres: 42}},
		"fail role":     {in: "bench=1", wantErr: true},
		"fail no pid":   {in: "proxy", wantErr: true},
		"fail zero":     {in: "proxy=0", wantErr: true},
		"fail not int":  {in: "proxy=x", wantErr: true},
		"fail negative": {in: "enclave=-4", wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := parsePidList(tc.in)
			if tc.wantErr {
				require.ErrorIs(t, err, ErrInvalidFlag)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
