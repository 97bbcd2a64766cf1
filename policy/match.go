package policy

import "strings"

// Match reports whether path matches pattern. A literal segment matches the
// same segment exactly (case-sensitive); '*' matches any run of characters
// within one segment, never a '/', so '*' alone matches exactly one segment
// and 'db*' matches 'db' and 'db-main'; '**' matches one or more whole
// segments. So 'prod/*' matches 'prod/a' but not 'prod/a/b', 'prod/**'
// matches both but not 'prod', and '**' matches every valid path.
//
// An invalid pattern or an invalid path never matches (fail closed).
// Matching runs in O(len(pattern) × len(path)) steps at worst, without
// backtracking blow-up, whatever the number of wildcards.
func Match(pattern, path string) bool {
	var work int
	return matchCounted(pattern, path, &work)
}

// matchCounted is Match with a step counter, so tests can bound the work
// without timing anything.
func matchCounted(pattern, path string, work *int) bool {
	if patternProblem(pattern) != "" || pathProblem(path) != "" {
		return false
	}
	return matchTokens(compilePattern(pattern), strings.Split(path, "/"), work)
}

// token is one step of a compiled pattern: a '**' segment compiles to an
// "any one segment" token followed by a "zero or more segments" token, so it
// matches one or more segments.
type token struct {
	any  bool   // matches exactly one segment, whatever it is
	star bool   // matches zero or more segments
	seg  string // otherwise: a segment pattern, literal or with '*'
}

// compilePattern turns a valid pattern into tokens.
func compilePattern(pattern string) []token {
	segs := strings.Split(pattern, "/")
	toks := make([]token, 0, len(segs)+2)
	for _, s := range segs {
		switch s {
		case "**":
			toks = append(toks, token{any: true}, token{star: true})
		case "*":
			toks = append(toks, token{any: true})
		default:
			toks = append(toks, token{seg: s})
		}
	}
	return toks
}

// matchTokens matches path segments against tokens with the classic greedy
// wildcard algorithm: it remembers only the most recent star and, on a
// mismatch, lets that star absorb one more segment. Earlier stars never need
// revisiting (whatever they absorbed, the latest star can absorb instead),
// so each star restart costs at most len(toks) steps and the total is
// O(len(toks) × len(segs)).
func matchTokens(toks []token, segs []string, work *int) bool {
	ti, si := 0, 0
	starTi, starSi := -1, 0
	for si < len(segs) {
		*work++
		if ti < len(toks) {
			t := toks[ti]
			if t.star {
				starTi, starSi = ti, si
				ti++
				continue
			}
			if t.any || matchSegment(t.seg, segs[si], work) {
				ti++
				si++
				continue
			}
		}
		if starTi < 0 {
			return false
		}
		starSi++
		si, ti = starSi, starTi+1
	}
	for ti < len(toks) && toks[ti].star {
		ti++
	}
	return ti == len(toks)
}

// matchSegment matches one path segment against one segment pattern, where
// '*' matches any run of bytes. Byte-wise matching is exact for UTF-8: the
// literal parts are valid UTF-8, and UTF-8 is self-synchronising, so a
// literal can only match on rune boundaries. Same greedy algorithm as
// matchTokens, O(len(p) × len(s)) at worst.
func matchSegment(p, s string, work *int) bool {
	if !strings.Contains(p, "*") {
		*work++
		return p == s
	}
	pi, si := 0, 0
	starPi, starSi := -1, 0
	for si < len(s) {
		*work++
		if pi < len(p) && p[pi] == '*' {
			starPi, starSi = pi, si
			pi++
			continue
		}
		if pi < len(p) && p[pi] == s[si] {
			pi++
			si++
			continue
		}
		if starPi < 0 {
			return false
		}
		starSi++
		si, pi = starSi, starPi+1
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
