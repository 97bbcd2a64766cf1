// Package strictjson refuses the JSON that parsers disagree on: documents
// that are not valid UTF-8, strings holding a lone UTF-16 surrogate escape,
// objects with a duplicate key (compared as encoding/json compares field
// names, that is with Unicode case folding), and nesting past a limit.
//
// encoding/json keeps the last of duplicate keys, matches field names
// case-insensitively and turns invalid UTF-8 and lone surrogates into
// U+FFFD. A body such as {"intents_api_enabled":false,"intents_api_enabled":true}
// would therefore mean one thing to a reviewer, a log reader or a WAF and
// another to the server; Check refuses it instead. Check does not replace
// the decoder's syntax check: it scans well-formed input correctly and
// leaves malformed input to the decoder.
package strictjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The problems Check reports.
var (
	ErrInvalidUTF8   = errors.New("the body is not valid UTF-8")
	ErrLoneSurrogate = errors.New("a string holds a lone UTF-16 surrogate escape")
	ErrDuplicateKey  = errors.New("an object holds the same key twice")
	ErrTooDeep       = errors.New("the body is nested too deeply")
	errUnterminated  = errors.New("unterminated string")
)

// maxReportedKeyLen bounds the key an error message repeats.
const maxReportedKeyLen = 64

// frame is one open object or array.
type frame struct {
	object    bool
	expectKey bool
	keys      map[string]struct{} // fold keys, made on the second key
	first     string              // the first key's fold key
	n         int
}

// Check scans b once and returns an error wrapping one of the Err values
// when b is invalid UTF-8, holds a lone surrogate escape, repeats a key in
// an object (after case folding) or nests deeper than maxDepth. The
// message names the duplicate key, shortened, never a value.
func Check(b []byte, maxDepth int) error {
	if !utf8.Valid(b) {
		return ErrInvalidUTF8
	}
	var stack []frame
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '"':
			end, escaped, err := scanString(b, i)
			if err != nil {
				if errors.Is(err, errUnterminated) {
					return nil // the decoder reports the syntax error
				}
				return err
			}
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].expectKey {
				if err := stack[n-1].addKey(b[i:end+1], escaped); err != nil {
					return err
				}
			}
			i = end
		case ':':
			// the value after a key follows
		case ',':
			if n := len(stack); n > 0 && stack[n-1].object {
				stack[n-1].expectKey = true
			}
		case '{', '[':
			if len(stack) >= maxDepth {
				return fmt.Errorf("%w: more than %d levels", ErrTooDeep, maxDepth)
			}
			stack = append(stack, frame{object: c == '{', expectKey: c == '{'})
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	return nil
}

// addKey records the key whose JSON text (quotes included) is raw.
func (f *frame) addKey(raw []byte, escaped bool) error {
	f.expectKey = false
	var key string
	if escaped {
		if json.Unmarshal(raw, &key) != nil {
			return nil // the decoder reports it
		}
	} else {
		key = string(raw[1 : len(raw)-1])
	}
	k := foldKey(key)
	f.n++
	switch {
	case f.n == 1:
		f.first = k
		return nil
	case f.keys == nil:
		f.keys = map[string]struct{}{f.first: {}}
	}
	if _, dup := f.keys[k]; dup {
		return fmt.Errorf("%w: %q", ErrDuplicateKey, shorten(key))
	}
	f.keys[k] = struct{}{}
	return nil
}

// scanString returns the index of the closing quote of the string that
// opens at b[start], whether it holds escapes, and ErrLoneSurrogate for a
// \u escape of a surrogate not paired high-then-low.
func scanString(b []byte, start int) (end int, escaped bool, err error) {
	for i := start + 1; i < len(b); i++ {
		switch b[i] {
		case '"':
			return i, escaped, nil
		case '\\':
			escaped = true
			if i+1 < len(b) && b[i+1] == 'u' {
				next, err := checkUnicodeEscape(b, i)
				if err != nil {
					return 0, false, err
				}
				i = next
				continue
			}
			i++
		}
	}
	return 0, false, errUnterminated
}

// checkUnicodeEscape checks the \uXXXX escape at b[i] and, for a high
// surrogate, the low surrogate escape that must follow. It returns the
// index of the escape's last byte.
func checkUnicodeEscape(b []byte, i int) (int, error) {
	r, ok := hex4(b, i+2)
	if !ok {
		return i + 1, nil // the decoder reports it
	}
	switch {
	case r >= 0xDC00 && r <= 0xDFFF:
		return 0, ErrLoneSurrogate
	case r >= 0xD800 && r <= 0xDBFF:
		if i+11 >= len(b) || b[i+6] != '\\' || b[i+7] != 'u' {
			return 0, ErrLoneSurrogate
		}
		lo, ok := hex4(b, i+8)
		if !ok || lo < 0xDC00 || lo > 0xDFFF {
			return 0, ErrLoneSurrogate
		}
		return i + 11, nil
	}
	return i + 5, nil
}

func hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[at : at+4] {
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(v)
	}
	return r, true
}

// foldKey maps every rune to the smallest rune of its case-folding orbit,
// so that keys encoding/json would match to one field map to one string
// ("Key", "KEY" and "key" alike; "ſ" with "s", the Kelvin sign with "k").
func foldKey(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToUpper(s) // the smallest rune of each ASCII letter's orbit
	}
	var sb strings.Builder
	for _, r := range s {
		min := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < min {
				min = f
			}
		}
		sb.WriteRune(min)
	}
	return sb.String()
}

func shorten(s string) string {
	if len(s) <= maxReportedKeyLen {
		return s
	}
	cut := maxReportedKeyLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
