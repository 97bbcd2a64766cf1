package handlers

import (
	"encoding/json"

	"github.com/opencustody/ocv/policy"
)

// fieldKind is the JSON type a checked body field must have (the table of
// kinds lives in package policy, with the guardrail fields).
type fieldKind = policy.FieldKind

// The field kinds, as the condition tables of the handlers name them.
const (
	kindBool           = policy.KindBool
	kindStrings        = policy.KindStrings
	kindNumberOrString = policy.KindNumberOrString
)

// kindMatches reports whether raw is JSON of kind.
func kindMatches(kind fieldKind, raw json.RawMessage) bool { return kind.Matches(raw) }
