package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCPUFigure(t *testing.T) {
	tests := map[string]struct {
		start, end, requests uint64
		want                 ProcCPU
	}{
		// 1,910 ticks = 19.1 s over 100,000 requests = 191 µs each.
		"ok proxy":       {start: 5000, end: 6910, requests: 100_000, want: ProcCPU{Seconds: 19.1, USPerRequest: 191}},
		"ok one tick":    {start: 0, end: 1, requests: 1, want: ProcCPU{Seconds: 0.01, USPerRequest: 10_000}},
		"ok idle":        {start: 42, end: 42, requests: 10, want: ProcCPU{}},
		"fail no answer": {start: 1, end: 3, requests: 0, want: ProcCPU{Seconds: 0.02, NA: "no successful request"}},
		"fail backwards": {start: 3, end: 1, requests: 5, want: ProcCPU{NA: "CPU counter went backwards"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := cpuFigure(tc.start, tc.end, tc.requests)
			require.Equal(t, tc.want.NA, got.NA)
			require.InDelta(t, tc.want.Seconds, got.Seconds, 1e-9)
			require.InDelta(t, tc.want.USPerRequest, got.USPerRequest, 1e-6)
		})
	}
}

func sample(ticks map[string]uint64, errs map[string]string) cpuSample {
	if errs == nil {
		errs = map[string]string{}
	}
	return cpuSample{ticks: ticks, errs: errs}
}

func TestCPUUse(t *testing.T) {
	start := map[string]uint64{roleProxy: 100, roleEnclave: 200, rolePostgres: 300, roleBench: 400}
	tests := map[string]struct {
		start, end cpuSample
		requests   uint64
		// µs per request by role; -1 means n/a.
		want map[string]float64
		// wantServer is the server's µs per request; -1 means n/a.
		wantServer float64
	}{
		"ok all": {
			start:    sample(start, nil),
			end:      sample(map[string]uint64{roleProxy: 291, roleEnclave: 248, rolePostgres: 460, roleBench: 500}, nil),
			requests: 10_000, // 1 tick = 10 ms = 1 µs per request over 10,000
			want:     map[string]float64{roleProxy: 191, roleEnclave: 48, rolePostgres: 160, roleBench: 100}, wantServer: 399,
		},
		"fail enclave not found": {
			start:    sample(map[string]uint64{roleProxy: 100, rolePostgres: 300, roleBench: 400}, map[string]string{roleEnclave: "no process named ocv-enclave"}),
			end:      sample(map[string]uint64{roleProxy: 200, rolePostgres: 400, roleBench: 500}, map[string]string{roleEnclave: "no process named ocv-enclave"}),
			requests: 10_000,
			want:     map[string]float64{roleProxy: 100, roleEnclave: -1, rolePostgres: 100, roleBench: 100}, wantServer: -1,
		},
		"fail proxy exited in the window": {
			start:    sample(start, nil),
			end:      sample(map[string]uint64{roleEnclave: 300, rolePostgres: 400, roleBench: 500}, map[string]string{roleProxy: "process exited: proxy pid 1"}),
			requests: 10_000,
			want:     map[string]float64{roleProxy: -1, roleEnclave: 100, rolePostgres: 100, roleBench: 100}, wantServer: -1,
		},
		"fail no successful request": {
			start:    sample(start, nil),
			end:      sample(map[string]uint64{roleProxy: 101, roleEnclave: 201, rolePostgres: 301, roleBench: 401}, nil),
			requests: 0,
			want:     map[string]float64{roleProxy: -1, roleEnclave: -1, rolePostgres: -1, roleBench: -1}, wantServer: -1,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			u := cpuUse(tc.start, tc.end, tc.requests)
			check := func(what string, want float64, got ProcCPU) {
				if want < 0 {
					require.NotEmpty(t, got.NA, what)
					return
				}
				require.Empty(t, got.NA, what)
				require.InDelta(t, want, got.USPerRequest, 1e-6, what)
			}
			for role, want := range tc.want {
				check(role, want, *u.byRole(role))
			}
			check("server", tc.wantServer, u.Server)
		})
	}
}

func TestFloorRatios(t *testing.T) {
	cpu := func(server, bench float64, serverNA string) *CPUUse {
		return &CPUUse{Server: ProcCPU{USPerRequest: server, NA: serverNA}, Bench: ProcCPU{USPerRequest: bench}}
	}
	results := []Result{
		{Scenario: floorScenarioName, Concurrency: 1, RPS: 4000, CPU: &CPUUse{Bench: ProcCPU{USPerRequest: 100}, skipped: true}},
		{Scenario: floorScenarioName, Concurrency: 16, RPS: 8000, CPU: &CPUUse{Bench: ProcCPU{USPerRequest: 80}, skipped: true}},
		{Scenario: "read", Concurrency: 1, RPS: 1000, CPU: cpu(400, 50, "")},
		{Scenario: "read", Concurrency: 16, RPS: 3200, CPU: cpu(400, 40, "")},
		{Scenario: "write", Concurrency: 16, RPS: 2000, CPU: cpu(0, 40, "no figure for enclave")},
		{Scenario: "write", Concurrency: 4, RPS: 2000, CPU: cpu(700, 40, "")}, // no floor at 4
	}
	floorRatios(results)
	tests := []struct {
		i    int
		want *FloorRatio
	}{
		{0, nil},
		{1, nil},
		{2, &FloorRatio{RPS: 0.25, ServerCPU: 4, TotalCPU: 4.5}},
		{3, &FloorRatio{RPS: 0.4, ServerCPU: 5, TotalCPU: 5.5}},
		{4, &FloorRatio{RPS: 0.25}},
		{5, nil},
	}
	for _, tc := range tests {
		got := results[tc.i].Floor
		if tc.want == nil {
			require.Nil(t, got, tc.i)
			continue
		}
		require.NotNil(t, got, tc.i)
		require.InDelta(t, tc.want.RPS, got.RPS, 1e-9, tc.i)
		require.InDelta(t, tc.want.ServerCPU, got.ServerCPU, 1e-9, tc.i)
		require.InDelta(t, tc.want.TotalCPU, got.TotalCPU, 1e-9, tc.i)
	}
}

func TestWriteCPU(t *testing.T) {
	var none bytes.Buffer
	writeCPU(&none, nil, []Result{{Scenario: "read", Concurrency: 1}})
	require.Empty(t, none.String(), "no CPU figures, no table")

	results := []Result{
		{Scenario: floorScenarioName, Concurrency: 16, RPS: 8000, CPU: &CPUUse{
			Proxy: ProcCPU{NA: "floor: x"}, Enclave: ProcCPU{NA: "floor: x"}, Postgres: ProcCPU{NA: "floor: x"},
			Server: ProcCPU{NA: "no figure for proxy"}, Bench: ProcCPU{USPerRequest: 80}, skipped: true}},
		{Scenario: "read", Concurrency: 16, RPS: 3200, CPU: &CPUUse{
			Proxy: ProcCPU{USPerRequest: 191}, Enclave: ProcCPU{NA: "no process named ocv-enclave; pass -enclave-pid"},
			Postgres: ProcCPU{USPerRequest: 160}, Server: ProcCPU{NA: "no figure for enclave"}, Bench: ProcCPU{USPerRequest: 40}},
			Floor: &FloorRatio{RPS: 0.4}},
	}
	var b bytes.Buffer
	writeCPU(&b, []ProcInfo{{Role: roleProxy, Pid: 12}, {Role: roleEnclave, NA: "x"}, {Role: rolePostgres, Pid: 34}}, results)
	out := b.String()
	require.Contains(t, out, "Measured: proxy pid 12, postgres pid 34.")
	require.Contains(t, out, "| tls-floor | 16 | 8000.0 | — | — | — | — | 80 µs | — | — |")
	require.Contains(t, out, "| read | 16 | 3200.0 | 191 µs | n/a | 160 µs | n/a | 40 µs | 0.40 | n/a |")
	require.Contains(t, out, "- enclave: no process named ocv-enclave; pass -enclave-pid")
	require.NotContains(t, out, "floor: x", "the floor's skipped roles are not listed as n/a")
}
