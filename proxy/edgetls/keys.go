package edgetls

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxKeyLen bounds storage keys and lock names. certmagic keys are a few
// path components of sanitised names (KeyBuilder.Safe), far below this.
const maxKeyLen = 1024

// validateKey checks that key is a clean, relative, slash-separated path as
// certmagic builds them: no leading, trailing or doubled slash, no "." or
// ".." component, no control characters or backslashes, valid UTF-8 and at
// most maxKeyLen bytes. Keys are validated rather than rewritten so that two
// different keys can never collapse onto the same row. The empty key is
// accepted only when allowRoot is set (List of the whole store).
func validateKey(key string, allowRoot bool) error {
	if key == "" {
		if allowRoot {
			return nil
		}
		return fmt.Errorf("%w: empty", ErrInvalidKey)
	}
	if len(key) > maxKeyLen {
		return fmt.Errorf("%w: longer than %d bytes", ErrInvalidKey, maxKeyLen)
	}
	if !utf8.ValidString(key) {
		return fmt.Errorf("%w: not valid UTF-8", ErrInvalidKey)
	}
	for _, r := range key {
		if unicode.IsControl(r) || r == '\\' {
			return fmt.Errorf("%w: forbidden character %U", ErrInvalidKey, r)
		}
	}
	for part := range strings.SplitSeq(key, "/") {
		switch part {
		case "":
			return fmt.Errorf("%w: empty path component", ErrInvalidKey)
		case ".", "..":
			return fmt.Errorf("%w: relative path component", ErrInvalidKey)
		}
	}
	return nil
}

// likePrefix returns a LIKE pattern matching every key strictly below the
// directory key (or every key when key is the root), with the LIKE
// metacharacters of key escaped: certmagic's sanitised names contain '_'.
func likePrefix(key string) string {
	if key == "" {
		return "%"
	}
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(key) + "/%"
}

// childOf returns the first path component of full below dir, and whether
// full lies below dir at all.
func childOf(dir, full string) (string, bool) {
	rest := full
	if dir != "" {
		var ok bool
		rest, ok = strings.CutPrefix(full, dir+"/")
		if !ok {
			return "", false
		}
	}
	first, _, _ := strings.Cut(rest, "/")
	return first, first != ""
}

// joinKey joins a directory key and a component.
func joinKey(dir, part string) string {
	if dir == "" {
		return part
	}
	return dir + "/" + part
}
