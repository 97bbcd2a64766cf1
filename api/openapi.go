// Package api holds OCV's API contract: the OpenAPI document that describes
// every implemented route, its bodies, status codes and problem types. The
// document is embedded; the server serves its JSON rendering at
// GET /openapi.json.
//
// Trust level: shared-contract (data only; imports nothing of OCV).
package api

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"gopkg.in/yaml.v3"
)

//go:embed openapi.yaml
var document []byte

// ErrNonStringKey is returned when a mapping key of the document cannot be a
// JSON object key.
var ErrNonStringKey = errors.New("mapping key is not a scalar")

// YAML returns the OpenAPI document as written, in YAML. The caller may
// modify the returned slice.
func YAML() []byte { return bytes.Clone(document) }

var renderJSON = sync.OnceValues(func() ([]byte, error) { return toJSON(document) })

// JSON returns the OpenAPI document rendered as JSON, for GET /openapi.json.
// The rendering is computed once; the caller may modify the returned slice.
func JSON() ([]byte, error) {
	b, err := renderJSON()
	if err != nil {
		return nil, err
	}
	return bytes.Clone(b), nil
}

func toJSON(doc []byte) ([]byte, error) {
	var v any
	if err := yaml.Unmarshal(doc, &v); err != nil {
		return nil, fmt.Errorf("parsing openapi.yaml: %w", err)
	}
	v, err := normalize(v)
	if err != nil {
		return nil, fmt.Errorf("converting openapi.yaml: %w", err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding openapi.json: %w", err)
	}
	return b, nil
}

// normalize turns the maps yaml.v3 produces for mappings with non-string
// keys (map[any]any, as for unquoted status codes like 200) into
// map[string]any, recursively, so that encoding/json accepts them.
func normalize(v any) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			n, err := normalize(e)
			if err != nil {
				return nil, fmt.Errorf("at %q: %w", k, err)
			}
			t[k] = n
		}
		return t, nil
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			ks, err := keyString(k)
			if err != nil {
				return nil, err
			}
			n, err := normalize(e)
			if err != nil {
				return nil, fmt.Errorf("at %q: %w", ks, err)
			}
			out[ks] = n
		}
		return out, nil
	case []any:
		for i, e := range t {
			n, err := normalize(e)
			if err != nil {
				return nil, fmt.Errorf("at [%d]: %w", i, err)
			}
			t[i] = n
		}
		return t, nil
	default:
		return v, nil
	}
}

func keyString(k any) (string, error) {
	switch t := k.(type) {
	case string:
		return t, nil
	case int:
		return strconv.Itoa(t), nil
	case int64:
		return strconv.FormatInt(t, 10), nil
	case uint64:
		return strconv.FormatUint(t, 10), nil
	case bool:
		return strconv.FormatBool(t), nil
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64), nil
	case nil:
		return "null", nil
	default:
		return "", fmt.Errorf("key of type %T: %w", k, ErrNonStringKey)
	}
}
