package tokens

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// maxFields bounds the members of a header or payload object.
const maxFields = 64

// objectFields splits one JSON object into its members, keys matched
// exactly. A repeated key, a non-object, more than maxFields members or
// anything after the object is refused (encoding/json alone would fold case
// and let the last duplicate win).
func objectFields(b []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, invalid("not a JSON object")
	}
	fields := make(map[string]json.RawMessage, 12)
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, invalid("malformed JSON")
		}
		key, ok := t.(string)
		if !ok {
			return nil, invalid("malformed JSON")
		}
		if _, dup := fields[key]; dup {
			return nil, invalid("repeated member")
		}
		if len(fields) == maxFields {
			return nil, invalid("too many members")
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, invalid("malformed JSON")
		}
		fields[key] = raw
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil, invalid("malformed JSON")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, invalid("trailing data after the JSON object")
	}
	return fields, nil
}
