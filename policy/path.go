package policy

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxPathBytes bounds a secret path and a path pattern.
const MaxPathBytes = 1024

// ValidatePath checks a secret path against SPEC-DECISIONS "Paths and
// policies": 1 to 1024 bytes of valid UTF-8, '/'-separated, no empty, '.'
// or '..' segment (so no leading or trailing '/'), no control character.
// Percent-decoding and the NFC check belong to the caller (the HTTP layer):
// this package may not import golang.org/x/text. Errors wrap ErrInvalidPath.
func ValidatePath(p string) error {
	if why := pathProblem(p); why != "" {
		return fmt.Errorf("%w: the path %s", ErrInvalidPath, why)
	}
	return nil
}

// ValidatePattern checks a path pattern: the same rules as a path, and '**'
// only as a whole segment ('a**', '**b' and '***' are invalid). A '*'
// anywhere else in a segment is a wildcard within that segment. Errors wrap
// ErrInvalidPattern.
func ValidatePattern(p string) error {
	if why := patternProblem(p); why != "" {
		return fmt.Errorf("%w: the pattern %s", ErrInvalidPattern, why)
	}
	return nil
}

// pathProblem returns why s is not a valid path, or "" when it is. It
// allocates nothing, so Match and Evaluate can call it on every request.
func pathProblem(s string) string {
	switch {
	case s == "":
		return "is empty"
	case len(s) > MaxPathBytes:
		return "is longer than 1024 bytes"
	case !utf8.ValidString(s):
		return "is not valid UTF-8"
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return "contains a control character"
		}
	}
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '/' {
			continue
		}
		switch s[start:i] {
		case "":
			return "has an empty segment (leading, trailing or double '/')"
		case ".", "..":
			return "has a '.' or '..' segment"
		}
		start = i + 1
	}
	return ""
}

// patternProblem returns why s is not a valid pattern, or "" when it is.
func patternProblem(s string) string {
	if why := pathProblem(s); why != "" {
		return why
	}
	for seg := range strings.SplitSeq(s, "/") {
		if seg != "**" && strings.Contains(seg, "**") {
			return "uses '**' inside a segment ('**' must be a whole segment)"
		}
	}
	return ""
}
