package strictjson

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want error
	}{
		{"plain object", `{"a":1,"b":{"a":2},"c":[{"a":1},{"a":1}]}`, nil},
		{"same key in sibling objects", `[{"k":1},{"k":2}]`, nil},
		{"duplicate key", `{"intents_api_enabled":false,"intents_api_enabled":true}`, ErrDuplicateKey},
		{"duplicate after case folding", `{"name":"a","NAME":"b"}`, ErrDuplicateKey},
		{"duplicate through an escape", `{"a":1,"\u0061":2}`, ErrDuplicateKey},
		{"long s folds to s", `{"s":1,"\u017f":2}`, ErrDuplicateKey},
		{"kelvin folds to k", `{"K":1,"\u212a":2}`, ErrDuplicateKey},
		{"duplicate in a nested object", `{"x":{"a":1,"b":2,"a":3}}`, ErrDuplicateKey},
		{"key-like string values", `{"a":"a","b":"a"}`, nil},
		{"colon and comma inside strings", `{"a":"x,\"y\":z","b":1}`, nil},
		{"invalid UTF-8", "{\"a\":\"\xff\"}", ErrInvalidUTF8},
		{"lone high surrogate", `{"a":"\ud800"}`, ErrLoneSurrogate},
		{"lone high surrogate at the end", `{"a":"x\ud83d"}`, ErrLoneSurrogate},
		{"lone low surrogate", `{"a":"\udc00"}`, ErrLoneSurrogate},
		{"reversed pair", `{"a":"\ude00\ud83d"}`, ErrLoneSurrogate},
		{"surrogate pair", `{"a":"\ud83d\ude00"}`, nil},
		{"escaped backslash then u", `{"a":"\\ud800"}`, nil},
		{"too deep", strings.Repeat("[", 5) + strings.Repeat("]", 5), ErrTooDeep},
		{"at the depth limit", strings.Repeat("[", 4) + strings.Repeat("]", 4), nil},
		{"brackets inside strings do not count", `{"a":"` + strings.Repeat("[", 100) + `\""}`, nil},
		{"unterminated string left to the decoder", `{"a":"x`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check([]byte(tt.in), 4)
			if !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
				t.Fatalf("Check(%q) = %v, want %v", tt.in, err, tt.want)
			}
		})
	}
}

func TestCheckMatchesDecoderFolding(t *testing.T) {
	// Whatever Check lets through, encoding/json must not merge two keys
	// into one field.
	var v struct {
		Name string `json:"name"`
	}
	for _, in := range []string{`{"name":"a","Name":"b"}`, `{"nam\u0065":"a","name":"b"}`} {
		if Check([]byte(in), 8) == nil {
			t.Errorf("Check(%s) passed a body encoding/json reads as one field twice", in)
		}
		if err := json.Unmarshal([]byte(in), &v); err != nil {
			t.Fatal(err)
		}
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":1,"a":2}`, `"\ud800"`, `[[[]]]`, "\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		err := Check(b, 16)
		if err == nil && json.Valid(b) {
			// A valid document Check accepts decodes without loss: no key
			// twice in an object.
			var v any
			if json.Unmarshal(b, &v) != nil {
				t.Fatalf("valid JSON failed to decode")
			}
		}
	})
}
