package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheckTarget(t *testing.T) {
	tests := map[string]struct {
		url     string
		remote  bool
		want    string
		wantErr error
	}{
		"ok loopback ipv4":       {url: "https://127.0.0.1:8443", want: "https://127.0.0.1:8443"},
		"ok loopback ipv6":       {url: "https://[::1]:8443/", want: "https://[::1]:8443"},
		"ok localhost":           {url: "https://LOCALHOST:8443", want: "https://LOCALHOST:8443"},
		"ok other loopback":      {url: "https://127.0.0.2:8443", want: "https://127.0.0.2:8443"},
		"ok remote when allowed": {url: "https://bench.example.com", remote: true, want: "https://bench.example.com"},
		"fail remote name":       {url: "https://bench.example.com", wantErr: ErrRemoteURL},
		"fail private address":   {url: "https://10.0.0.1:8443", wantErr: ErrRemoteURL},
		// A name that merely starts like a loopback address is still a DNS name.
		"fail lookalike name":   {url: "https://127.0.0.1.example.com", wantErr: ErrRemoteURL},
		"fail localhost suffix": {url: "https://localhost.example.com", wantErr: ErrRemoteURL},
		"fail scheme":           {url: "ftp://127.0.0.1", wantErr: ErrInvalidFlag},
		"fail no host":          {url: "https://", wantErr: ErrInvalidFlag},
		// Credentials in the URL would end up in logs and the printed command.
		"fail userinfo": {url: "https://u:p@127.0.0.1:8443", wantErr: ErrInvalidFlag},
		"fail query":    {url: "https://127.0.0.1:8443?x=1", wantErr: ErrInvalidFlag},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			u, err := checkTarget(tc.url, tc.remote)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Equal(t, tc.want, u.String())
			}
		})
	}
}

func TestParseFlags(t *testing.T) {
	tests := map[string]struct {
		args          []string
		wantScenarios []string
		wantConc      []int
		wantErr       error
	}{
		"ok defaults": {wantScenarios: []string{"write", "read", "personalsign", "txsign", "hsmraw"}, wantConc: []int{1, 16}},
		"ok full": {args: []string{"-concurrency", "1, 4,64", "-scenarios", "read", "-value-size", "1024", "-h2", "-json"},
			wantScenarios: []string{"read"}, wantConc: []int{1, 4, 64}},
		"ok pipeline scenarios": {args: []string{"-scenarios", "health,authget", "-concurrency", "16"},
			wantScenarios: []string{"health", "authget"}, wantConc: []int{16}},
		"ok signing scenarios": {args: []string{"-scenarios", "personalsign, txsign,hsmraw,txsign"},
			wantScenarios: []string{"personalsign", "txsign", "hsmraw"}, wantConc: []int{1, 16}},
		"ok hsmraw alone": {args: []string{"-scenarios", "hsmraw", "-softhsm-module", "/opt/softhsm.so"},
			wantScenarios: []string{"hsmraw"}, wantConc: []int{1, 16}},
		// The module is only needed when hsmraw runs.
		"ok no module without hsmraw": {args: []string{"-scenarios", "txsign", "-softhsm-module", ""},
			wantScenarios: []string{"txsign"}, wantConc: []int{1, 16}},
		"fail hsmraw without module":   {args: []string{"-scenarios", "hsmraw", "-softhsm-module", ""}, wantErr: ErrInvalidFlag},
		"fail scenario name in report": {args: []string{"-scenarios", "hsm-raw-secp256k1"}, wantErr: ErrInvalidFlag},
		"fail concurrency nan":         {args: []string{"-concurrency", "1,x"}, wantErr: ErrInvalidFlag},
		"fail concurrency 0":           {args: []string{"-concurrency", "0"}, wantErr: ErrInvalidFlag},
		// A repeated level would overwrite the earlier level's write paths.
		"fail concurrency twice": {args: []string{"-concurrency", "4,4"}, wantErr: ErrInvalidFlag},
		"fail scenario":          {args: []string{"-scenarios", "write,delete"}, wantErr: ErrInvalidFlag},
		"fail duration zero":     {args: []string{"-duration", "0s"}, wantErr: ErrInvalidFlag},
		"fail warmup negative":   {args: []string{"-warmup", "-1s"}, wantErr: ErrInvalidFlag},
		"fail value too big":     {args: []string{"-value-size", "600000"}, wantErr: ErrInvalidFlag},
		"fail read keys":         {args: []string{"-read-keys", "0"}, wantErr: ErrInvalidFlag},
		"fail remote":            {args: []string{"-url", "https://example.com"}, wantErr: ErrRemoteURL},
		"fail extra argument":    {args: []string{"now"}, wantErr: ErrInvalidFlag},
		"ok pids":                {args: []string{"-proxy-pid", "12", "-pg-pid", "34"}, wantScenarios: []string{"write", "read", "personalsign", "txsign", "hsmraw"}, wantConc: []int{1, 16}},
		"fail negative pid":      {args: []string{"-enclave-pid", "-1"}, wantErr: ErrInvalidFlag},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Setenv("OCV_BENCH_URL", "")
			t.Setenv("OCV_SOFTHSM2_MODULE", "")
			t.Setenv("OCV_BENCH_PIDS", "")
			cfg, err := parseFlags(tc.args)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Equal(t, tc.wantScenarios, cfg.scenarios)
				require.Equal(t, tc.wantConc, cfg.concurrency)
			}
		})
	}
}

func TestCommandLine(t *testing.T) {
	require.Equal(t, "go run ./test/bench -duration=5s -scenarios 'a b' ''",
		commandLine([]string{"-duration=5s", "-scenarios", "a b", ""}))
}

func TestErrorCell(t *testing.T) {
	require.Equal(t, "0", errorCell(map[string]uint64{}))
	require.Equal(t, "5 (429:3, 500:1, transport:1)", errorCell(map[string]uint64{"transport": 1, "500": 1, "429": 3}))
}

func TestParseFlagsPids(t *testing.T) {
	tests := map[string]struct {
		env     string
		args    []string
		want    map[string]int
		wantErr error
	}{
		"ok none":         {want: map[string]int{}},
		"ok env":          {env: "proxy=1,enclave=2,postgres=3", want: map[string]int{roleProxy: 1, roleEnclave: 2, rolePostgres: 3}},
		"ok flag wins":    {env: "proxy=1,postgres=3", args: []string{"-proxy-pid", "9"}, want: map[string]int{roleProxy: 9, rolePostgres: 3}},
		"fail env":        {env: "proxy=abc", wantErr: ErrInvalidFlag},
		"fail negative":   {args: []string{"-pg-pid", "-3"}, wantErr: ErrInvalidFlag},
		"fail bench role": {env: "bench=3", wantErr: ErrInvalidFlag},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Setenv("OCV_BENCH_URL", "")
			t.Setenv("OCV_BENCH_PIDS", tc.env)
			cfg, err := parseFlags(append([]string{"-scenarios", "read"}, tc.args...))
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Equal(t, tc.want, cfg.pids.pids)
				require.NotEmpty(t, cfg.pids.cwd)
			}
		})
	}
}
