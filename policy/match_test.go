package policy

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestValidatePath(t *testing.T) {
	tests := map[string]struct {
		path    string
		wantErr error
	}{
		"ok one segment":     {path: "a"},
		"ok nested":          {path: "prod/db/password"},
		"ok unicode":         {path: "café/ключ"},
		"ok star is literal": {path: "prod/*"}, // a path may hold '*'; only patterns give it meaning
		"ok max length":      {path: strings.Repeat("a", 1024)},
		"fail empty":         {path: "", wantErr: ErrInvalidPath},
		"fail over 1024":     {path: strings.Repeat("a", 1025), wantErr: ErrInvalidPath},
		"fail leading slash": {path: "/a", wantErr: ErrInvalidPath},
		"fail trailing":      {path: "a/", wantErr: ErrInvalidPath},
		"fail double slash":  {path: "a//b", wantErr: ErrInvalidPath},
		"fail dot":           {path: "a/./b", wantErr: ErrInvalidPath},
		"fail dotdot":        {path: "a/../b", wantErr: ErrInvalidPath}, // traversal must never reach a match
		"fail lone dotdot":   {path: "..", wantErr: ErrInvalidPath},
		"fail NUL":           {path: "a\x00b", wantErr: ErrInvalidPath}, // truncation tricks in C layers
		"fail newline":       {path: "a\nb", wantErr: ErrInvalidPath},   // log injection
		"fail C1 control":    {path: "a\u0085b", wantErr: ErrInvalidPath},
		"fail bad UTF-8":     {path: "a\xffb", wantErr: ErrInvalidPath},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, ValidatePath(tc.path), tc.wantErr)
		})
	}
}

func TestValidatePattern(t *testing.T) {
	tests := map[string]struct {
		pattern string
		wantErr error
	}{
		"ok literal":            {pattern: "prod/db"},
		"ok star":               {pattern: "prod/*"},
		"ok double star":        {pattern: "prod/**"},
		"ok bare double star":   {pattern: "**"},
		"ok prefix glob":        {pattern: "db*"},
		"ok suffix glob":        {pattern: "*-prod"},
		"ok infix glob":         {pattern: "a*b"},
		"ok several stars":      {pattern: "a*b*c"},
		"ok many double stars":  {pattern: "**/x/**/y/**"},
		"fail empty":            {pattern: "", wantErr: ErrInvalidPattern},
		"fail a**":              {pattern: "a**", wantErr: ErrInvalidPattern}, // '**' only as a whole segment
		"fail **b":              {pattern: "**b", wantErr: ErrInvalidPattern},
		"fail ***":              {pattern: "***", wantErr: ErrInvalidPattern},
		"fail a**b in segment":  {pattern: "x/a**b/y", wantErr: ErrInvalidPattern},
		"fail leading slash":    {pattern: "/prod/*", wantErr: ErrInvalidPattern},
		"fail trailing slash":   {pattern: "prod/", wantErr: ErrInvalidPattern},
		"fail empty segment":    {pattern: "prod//*", wantErr: ErrInvalidPattern},
		"fail dotdot":           {pattern: "prod/../**", wantErr: ErrInvalidPattern}, // would let a grant escape its prefix
		"fail dot":              {pattern: "./prod", wantErr: ErrInvalidPattern},
		"fail control":          {pattern: "prod/\t*", wantErr: ErrInvalidPattern},
		"fail bad UTF-8":        {pattern: "prod/\xc3", wantErr: ErrInvalidPattern},
		"fail over 1024 bytes":  {pattern: strings.Repeat("*/", 512) + "x", wantErr: ErrInvalidPattern},
		"ok exactly 1024 bytes": {pattern: strings.Repeat("a", 1024)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, ValidatePattern(tc.pattern), tc.wantErr)
		})
	}
}

func TestMatch(t *testing.T) {
	tests := map[string]struct {
		pattern, path string
		want          bool
	}{
		"star one segment":             {pattern: "prod/*", path: "prod/a", want: true},
		"star not two segments":        {pattern: "prod/*", path: "prod/a/b"},
		"star not zero segments":       {pattern: "prod/*", path: "prod"},
		"double star one":              {pattern: "prod/**", path: "prod/a", want: true},
		"double star two":              {pattern: "prod/**", path: "prod/a/b", want: true},
		"double star not the prefix":   {pattern: "prod/**", path: "prod"},
		"double star other prefix":     {pattern: "prod/**", path: "production/a"}, // no string-prefix confusion
		"bare double star":             {pattern: "**", path: "a", want: true},
		"bare double star deep":        {pattern: "**", path: "a/b/c/d", want: true},
		"literal exact":                {pattern: "prod/db", path: "prod/db", want: true},
		"literal case-sensitive":       {pattern: "prod/db", path: "Prod/db"},
		"literal longer path":          {pattern: "prod/db", path: "prod/db/x"},
		"literal shorter path":         {pattern: "prod/db", path: "prod"},
		"prefix glob":                  {pattern: "db*", path: "db-main", want: true},
		"prefix glob empty rest":       {pattern: "db*", path: "db", want: true},
		"prefix glob no cross":         {pattern: "db*", path: "db/x"}, // '*' never crosses '/'
		"prefix glob mismatch":         {pattern: "db*", path: "xdb"},
		"suffix glob":                  {pattern: "*-prod", path: "api-prod", want: true},
		"suffix glob mismatch":         {pattern: "*-prod", path: "api-prod2"},
		"infix glob":                   {pattern: "a*b", path: "axxb", want: true},
		"infix glob minimal":           {pattern: "a*b", path: "ab", want: true},
		"infix glob mismatch":          {pattern: "a*b", path: "axxc"},
		"infix glob no cross":          {pattern: "a*b", path: "a/b"},
		"several stars backtrack":      {pattern: "a*b*c", path: "abxbyc", want: true},
		"several stars fail":           {pattern: "a*b*c", path: "acb"},
		"double star middle":           {pattern: "a/**/z", path: "a/b/c/z", want: true},
		"double star middle needs one": {pattern: "a/**/z", path: "a/z"}, // '**' is one or more
		"double star then star":        {pattern: "**/*", path: "a/b", want: true},
		"double star then star short":  {pattern: "**/*", path: "a"},
		"two double stars":             {pattern: "**/x/**", path: "a/x/b", want: true},
		"two double stars backtrack":   {pattern: "**/x/**", path: "x/x/x", want: true},
		"two double stars no x inside": {pattern: "**/x/**", path: "x/a/b"},
		"glob inside deep":             {pattern: "**/db*/password", path: "eu/prod/db-1/password", want: true},
		"unicode literal":              {pattern: "café/*", path: "café/k", want: true},
		"unicode glob":                 {pattern: "*é", path: "café", want: true},
		"invalid path never matches":   {pattern: "**", path: "a/../b"}, // fail closed on traversal
		"invalid path empty":           {pattern: "**", path: ""},
		"invalid pattern never":        {pattern: "a**", path: "abc"},
		"invalid pattern dotdot":       {pattern: "prod/../**", path: "prod/x"},
		"star pattern literal star":    {pattern: "prod/*", path: "prod/*", want: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, Match(tc.pattern, tc.path))
		})
	}
}

// TestMatchWorkIsBounded proves there is no exponential backtracking: a
// naive recursive matcher needs about C(511, 300) steps on these inputs.
// The bound is counted in steps, never timed.
func TestMatchWorkIsBounded(t *testing.T) {
	tests := map[string]struct {
		pattern, path string
		want          bool
	}{
		"300 double stars, no x at the end": {
			pattern: strings.Repeat("**/", 300) + "x",
			path:    strings.Repeat("a/", 511) + "a",
		},
		"300 double stars, x at the end": {
			pattern: strings.Repeat("**/", 300) + "x",
			path:    strings.Repeat("a/", 511) + "x",
			want:    true,
		},
		"double stars between literals that almost match": {
			pattern: strings.Repeat("**/a/", 150) + "b",
			path:    strings.Repeat("a/", 511) + "a",
		},
		"one double star then a long almost-matching run (the greedy worst case)": {
			pattern: "**/" + strings.Repeat("a/", 200) + "b",
			path:    strings.Repeat("a/", 511) + "a",
		},
		"one star then a long almost-matching run in one segment": {
			pattern: "*" + strings.Repeat("a", 300) + "b",
			path:    strings.Repeat("a", 1024),
		},
		"many stars in one segment": {
			pattern: strings.Repeat("*a", 300) + "*b",
			path:    strings.Repeat("a", 1024),
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, ValidatePattern(tc.pattern))
			require.NoError(t, ValidatePath(tc.path))
			var work int
			require.Equal(t, tc.want, matchCounted(tc.pattern, tc.path, &work))
			// O(len(pattern) × len(path)): at most about a million steps.
			bound := (len(tc.pattern) + 2) * (len(tc.path) + 2)
			require.LessOrEqual(t, work, bound)
		})
	}
}

// refMatch is an obviously correct, exponential reference matcher.
func refMatch(pat, path []string) bool {
	if len(pat) == 0 {
		return len(path) == 0
	}
	if pat[0] == "**" {
		for k := 1; k <= len(path); k++ {
			if refMatch(pat[1:], path[k:]) {
				return true
			}
		}
		return false
	}
	return len(path) > 0 && refSegment(pat[0], path[0]) && refMatch(pat[1:], path[1:])
}

func refSegment(p, s string) bool {
	if p == "" {
		return s == ""
	}
	if p[0] == '*' {
		for k := 0; k <= len(s); k++ {
			if refSegment(p[1:], s[k:]) {
				return true
			}
		}
		return false
	}
	return s != "" && p[0] == s[0] && refSegment(p[1:], s[1:])
}

// TestMatchAgainstReference compares Match with refMatch on many small
// random inputs over a tiny alphabet, where wildcards interact the most.
func TestMatchAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	segPats := []string{"a", "b", "*", "**", "a*", "*b", "a*b", "*a*", "ab"}
	segs := []string{"a", "b", "ab", "ba", "aab", "bb"}
	for range 20000 {
		pat := make([]string, 1+rng.IntN(5))
		for i := range pat {
			pat[i] = segPats[rng.IntN(len(segPats))]
		}
		path := make([]string, 1+rng.IntN(6))
		for i := range path {
			path[i] = segs[rng.IntN(len(segs))]
		}
		p, s := strings.Join(pat, "/"), strings.Join(path, "/")
		require.Equal(t, refMatch(pat, path), Match(p, s), "pattern %q path %q", p, s)
	}
}

func FuzzMatch(f *testing.F) {
	for _, s := range [][2]string{
		{"prod/*", "prod/a"}, {"prod/**", "prod/a/b"}, {"**", "a"}, {"a*b", "axb"},
		{"**/**/x", "a/b/x"}, {"a**", "a"}, {"", ""}, {"*", "a/../b"}, {"db*", "db"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		var work int
		got := matchCounted(pattern, path, &work) // must not panic
		require.LessOrEqual(t, work, (len(pattern)+2)*(len(path)+2))
		if ValidatePath(path) == nil {
			require.True(t, Match("**", path), "** must match every valid path")
		} else {
			require.False(t, got, "an invalid path never matches")
		}
		if ValidatePattern(pattern) != nil {
			require.False(t, got, "an invalid pattern never matches")
		}
		if got {
			require.True(t, Match(pattern, path)) // deterministic
		}
		if len(pattern) <= 24 && len(path) <= 24 && ValidatePattern(pattern) == nil && ValidatePath(path) == nil {
			require.Equal(t, refMatch(strings.Split(pattern, "/"), strings.Split(path, "/")), got)
		}
	})
}
