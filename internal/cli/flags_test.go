package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseInterspersed(t *testing.T) {
	tests := map[string]struct {
		args     []string
		wantPos  []string
		wantDash bool
		wantErr  error
	}{
		"flags after positional": {args: []string{"a", "--vault", "v", "b"}, wantPos: []string{"a", "b"}},
		"dashdash ends flags":    {args: []string{"--vault", "v", "--", "x", "--vault", "y"}, wantPos: []string{"x", "--vault", "y"}, wantDash: true},
		"fail unknown flag":      {args: []string{"a", "--nope"}, wantErr: ErrUsage},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			fs := newFlags("t", io.Discard)
			fs.String("vault", "", "")
			pos, dash, err := parseInterspersed(fs, tc.args)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Equal(t, tc.wantPos, pos)
				require.Equal(t, tc.wantDash, dash)
			}
		})
	}
}

func TestExitCode(t *testing.T) {
	tests := map[string]struct {
		err        error
		wantCode   int
		wantStderr string
	}{
		"ok":                  {err: nil, wantCode: 0},
		"usage":               {err: errors.New("x"), wantCode: 1, wantStderr: "ocv: x\n"},
		"usage error exits 2": {err: ErrUsage, wantCode: 2, wantStderr: "ocv: usage\n"},
		"help":                {err: flag.ErrHelp, wantCode: 0},
		"child":               {err: &exitCodeError{code: 42}, wantCode: 42},
		"problem keeps its format when wrapped": {err: errors.Join(&ProblemError{Type: "gone", Title: "Gone", Status: 410, Detail: "expired"}),
			wantCode: 1, wantStderr: "ocv: Gone: expired (gone, HTTP 410)\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			require.Equal(t, tc.wantCode, exitCode(tc.err, &b))
			require.Equal(t, tc.wantStderr, b.String())
		})
	}
}

func TestReadValue(t *testing.T) {
	file := filepath.Join(t.TempDir(), "v")
	require.NoError(t, os.WriteFile(file, []byte("from file\n"), 0o600))
	bad := filepath.Join(t.TempDir(), "bad")
	badBytes := []byte{0xff, 0x00, 0xfe}
	require.NoError(t, os.WriteFile(bad, badBytes, 0o600))
	tests := map[string]struct {
		stdin      string
		fromStdin  bool
		file       string
		literal    string
		literalSet bool
		want       string
		wantEnc    string // "" for text
		wantErr    error
	}{
		"stdin drops one newline":  {stdin: "v\n\n", fromStdin: true, want: "v\n"},
		"stdin crlf":               {stdin: "v\r\n", fromStdin: true, want: "v"},
		"file byte for byte":       {file: file, want: "from file\n"},
		"literal":                  {literal: "x", literalSet: true, want: "x"},
		"empty literal is a value": {literalSet: true, want: ""},
		"fail none":                {wantErr: ErrUsage},
		"fail two":                 {fromStdin: true, literalSet: true, wantErr: ErrUsage},
		// JSON would turn invalid UTF-8 into U+FFFD: binary goes as base64.
		"binary file as base64":      {file: bad, want: base64.StdEncoding.EncodeToString(badBytes), wantEnc: "base64"},
		"binary stdin keeps newline": {stdin: "\xff\n", fromStdin: true, want: base64.StdEncoding.EncodeToString([]byte("\xff\n")), wantEnc: "base64"},
		"fail too large":             {stdin: strings.Repeat("a", maxValueBytes+1), fromStdin: true, wantErr: ErrUsage},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r, w, err := os.Pipe()
			require.NoError(t, err)
			go func() { _, _ = io.WriteString(w, tc.stdin); w.Close() }()
			defer r.Close()
			e := &cmdEnv{stdin: r, stdout: io.Discard, stderr: io.Discard}
			got, enc, err := readValue(e, tc.fromStdin, tc.file, tc.literal, tc.literalSet)
			require.ErrorIs(t, err, tc.wantErr)
			require.Equal(t, tc.want, got)
			if tc.wantEnc == "" {
				require.Nil(t, enc)
			} else {
				require.Equal(t, tc.wantEnc, *enc)
			}
		})
	}
}

func TestRunUsage(t *testing.T) {
	tests := map[string]struct {
		args     []string
		wantCode int
	}{
		"no command":            {args: nil, wantCode: 2},
		"unknown":               {args: []string{"frobnicate"}, wantCode: 2},
		"missing argument":      {args: []string{"vault", "get"}, wantCode: 2},
		"help":                  {args: []string{"vault", "list", "-h"}, wantCode: 0},
		"delete wants an id":    {args: []string{"vault", "delete", "prod"}, wantCode: 2},
		"run without a command": {args: []string{"run", "--vault", "v", "--path", "p"}, wantCode: 2},
		"run without a path":    {args: []string{"run", "--vault", "v", "--", "true"}, wantCode: 2},
		"http url refused":      {args: []string{"--url", "http://x", "vault", "list"}, wantCode: 2},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			env := map[string]string{"HOME": t.TempDir(), "OCV_TOKEN": "tok-canary"}
			var out, errb bytes.Buffer
			e := &cmdEnv{stdin: os.Stdin, stdout: &out, stderr: &errb, getenv: func(k string) string { return env[k] }}
			require.Equal(t, tc.wantCode, run(context.Background(), e, tc.args))
			require.NotContains(t, out.String()+errb.String(), "tok-canary", "help never shows the token")
		})
	}
}
