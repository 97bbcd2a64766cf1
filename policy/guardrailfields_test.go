package policy

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFieldKindMatches(t *testing.T) {
	tests := map[string]struct {
		kind FieldKind
		raw  string
		want bool
	}{
		"ok bool":                 {KindBool, `true`, true},
		"fail bool string":        {KindBool, `"true"`, false},
		"ok string":               {KindString, `"deny"`, true},
		"fail string number":      {KindString, `1`, false},
		"ok object":               {KindObject, `{"a":1}`, true},
		"fail object array":       {KindObject, `[]`, false},
		"ok array mixed":          {KindArray, `[1,"a",{}]`, true},
		"fail array object":       {KindArray, `{}`, false},
		"ok strings":              {KindStrings, `["a","b"]`, true},
		"ok strings empty":        {KindStrings, `[]`, true},
		"fail strings mixed":      {KindStrings, `["a",1]`, false},
		"fail strings not array":  {KindStrings, `"a"`, false},
		"ok integer":              {KindInteger, `42`, true},
		"ok integer zero":         {KindInteger, `0`, true},
		"fail integer negative":   {KindInteger, `-1`, false},
		"fail integer fraction":   {KindInteger, `1.5`, false},
		"fail integer past 2^53":  {KindInteger, `1e16`, false},
		"ok number":               {KindNumberOrString, `1.5`, true},
		"ok number string":        {KindNumberOrString, `"1.5"`, true},
		"fail number bool":        {KindNumberOrString, `true`, false},
		"fail invalid json":       {KindBool, `tru`, false},
		"fail null is not a bool": {KindBool, `null`, false},
		// An unknown kind never matches (fail closed).
		"fail unknown kind": {FieldKind(99), `true`, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.kind.Matches(json.RawMessage(tc.raw)))
		})
	}
}

func TestGuardrailDefaultsAreBooleanFields(t *testing.T) {
	for name, v := range GuardrailDefaults {
		_, isBool := v.(bool)
		require.True(t, isBool, name)
		require.Equal(t, KindBool, GuardrailFields[name], name)
	}
}

func TestGuardrailBool(t *testing.T) {
	tests := map[string]struct {
		stored string
		name   string
		want   bool
	}{
		"ok set true":              {`{"memory_enabled":true}`, "memory_enabled", true},
		"ok set false over true":   {`{"card_require_approval":false}`, "card_require_approval", false},
		"ok default true":          {`{}`, "pay_require_passkey", true},
		"ok default false":         {`{}`, "execution_intents_enabled", false},
		"ok no default":            {`{}`, "memory_enabled", false},
		"ok nothing stored":        {``, "card_require_approval", true},
		"ok non-boolean: default":  {`{"card_require_approval":"no"}`, "card_require_approval", true},
		"ok null stored: defaults": {`null`, "pay_require_passkey", true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, GuardrailBool([]byte(tc.stored), tc.name))
		})
	}
}
