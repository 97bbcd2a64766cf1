package evm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// checkKeys scans a JSON document and rejects duplicate object keys and,
// when asciiLower is set, any key that is not made of [a-z0-9_].
//
// encoding/json keeps the last of duplicate keys and matches field names
// case-insensitively (with Unicode folding: "ſ" matches "s"). Another parser
// in front of us, a log reader or a reviewer could read such a document
// differently from the enclave, so it is refused instead.
func checkKeys(b []byte, asciiLower bool) error {
	type frame struct {
		object    bool
		expectKey bool
		keys      map[string]struct{}
	}
	var stack []*frame
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].expectKey = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		top := (*frame)(nil)
		if n := len(stack); n > 0 {
			top = stack[n-1]
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			valueDone()
			stack = append(stack, &frame{object: tok == json.Delim('{'), expectKey: true, keys: map[string]struct{}{}})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		default:
			if top == nil || !top.object || !top.expectKey {
				valueDone()
				continue
			}
			key, _ := tok.(string)
			if _, dup := top.keys[key]; dup {
				return fmt.Errorf("duplicate key %q", truncate(key))
			}
			if asciiLower && !isLowerKey(key) {
				return fmt.Errorf("key %q is not lower-case snake_case", truncate(key))
			}
			top.keys[key] = struct{}{}
			top.expectKey = false
		}
	}
}

func isLowerKey(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return s != ""
}
