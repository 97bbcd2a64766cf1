package handlers

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/api/problem"
)

func TestSecretPath(t *testing.T) {
	tests := map[string]struct {
		escaped string
		want    string
		wantErr bool
	}{
		"simple":            {escaped: "db", want: "db"},
		"nested":            {escaped: "prod/db/password", want: "prod/db/password"},
		"space decoded":     {escaped: "team%20a/key", want: "team a/key"},
		"unicode NFC":       {escaped: "caf%C3%A9", want: "café"},
		"dots inside name":  {escaped: "a.b/.c/d.", want: "a.b/.c/d."},
		"dot-dot in name":   {escaped: "a/..c", wantErr: true},
		"name ends dot-dot": {escaped: "a/d..", wantErr: true},
		"backslash":         {escaped: "a%5Cb", wantErr: true},
		"semicolon":         {escaped: "a;b", wantErr: true},
		"question mark":     {escaped: "a%3Fb", wantErr: true},
		"hash":              {escaped: "a%23b", wantErr: true},
		"bidi override":     {escaped: "a%E2%80%AEb", wantErr: true},
		"zero width space":  {escaped: "a%E2%80%8Bb", wantErr: true},
		"BOM":               {escaped: "%EF%BB%BFa", wantErr: true},
		"max length":        {escaped: strings.Repeat("a", 1024), want: strings.Repeat("a", 1024)},
		"empty":             {escaped: "", wantErr: true},
		"leading slash":     {escaped: "/a", wantErr: true},
		"trailing slash":    {escaped: "a/", wantErr: true},
		"double slash":      {escaped: "a//b", wantErr: true},
		"dot":               {escaped: "a/./b", wantErr: true},
		"dot-dot":           {escaped: "a/../b", wantErr: true},
		// Decoding happens once: an encoded dot-dot is still a dot-dot segment.
		"encoded dot-dot": {escaped: "a/%2e%2e/b", wantErr: true},
		// A decoded '/' inside a segment would let two URLs name one secret.
		"encoded slash":       {escaped: "a%2Fb", wantErr: true},
		"double encoded":      {escaped: "a%252Fb", want: "a%2Fb"},
		"control char":        {escaped: "a%00b", wantErr: true},
		"DEL":                 {escaped: "a%7Fb", wantErr: true},
		"C1 control":          {escaped: "a%C2%85b", wantErr: true},
		"invalid utf8":        {escaped: "a%FFb", wantErr: true},
		"not NFC":             {escaped: "e%CC%81", wantErr: true},
		"bad escape":          {escaped: "a%zz", wantErr: true},
		"over 1024 bytes":     {escaped: strings.Repeat("a", 1025), wantErr: true},
		"over after decoding": {escaped: strings.Repeat("%C3%A9", 513), wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := SecretPath(tc.escaped)
			if tc.wantErr {
				var p *problem.Problem
				require.ErrorAs(t, err, &p)
				require.Equal(t, problem.TypeInvalidPath, p.Type)
				require.Equal(t, 400, p.Status)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func FuzzSecretPath(f *testing.F) {
	for _, s := range []string{"a/b", "a%2Fb", "..", "caf%C3%A9", "%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := SecretPath(s)
		if err != nil {
			return
		}
		// Whatever is accepted is a clean, bounded path.
		if p == "" || len(p) > MaxPathBytes || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
			t.Fatalf("accepted %q", p)
		}
		for _, seg := range strings.Split(p, "/") {
			if seg == "" || seg == "." || seg == ".." {
				t.Fatalf("accepted segment %q in %q", seg, p)
			}
		}
	})
}
