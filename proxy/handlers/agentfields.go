package handlers

import (
	"encoding/json"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/policy"
)

const (
	maxAgentName   = 255
	maxEnvironment = 64
	maxScopes      = 256
)

// agentInput is a parsed create or patch body. A nil pointer is an absent
// field; clear* say the field was null.
type agentInput struct {
	Name, Description             *string
	IntentsAPIEnabled, SkipPolicy *bool
	APIKeyExpiresAt               *time.Time
	Environment                   *string
	ClearEnvironment              bool
	Scopes                        []string
	SetScopes                     bool // scopes present (nil Scopes: null, derived again)
	Guardrails                    map[string]json.RawMessage
}

// applyFields sets the record fields that are present in the input (not
// the guardrails, which mergeGuardrails folds in).
func (in agentInput) applyFields(a *store.Agent) {
	if in.Name != nil {
		a.Name = *in.Name
	}
	if in.Description != nil {
		a.Description = *in.Description
	}
	if in.IntentsAPIEnabled != nil {
		a.IntentsAPIEnabled = *in.IntentsAPIEnabled
	}
	if in.Environment != nil {
		a.Environment = *in.Environment
	}
	if in.ClearEnvironment {
		a.Environment = ""
	}
	if in.SetScopes {
		a.Scopes = in.Scopes
	}
}

func badField(name, why string) error {
	return problem.BadRequest(problem.TypeInvalidRequest, name+" "+why)
}

// parseAgentInput reads body fields one by one; unknown fields, and on a
// patch the create-only ones, are 400. now is the database's clock
// (h.now()), which api_key_expires_at must be after.
func parseAgentInput(body map[string]json.RawMessage, create bool, now time.Time) (agentInput, error) {
	var in agentInput
	in.Guardrails = map[string]json.RawMessage{}
	for k, raw := range body {
		null := string(raw) == "null"
		var err error
		switch k {
		case "name":
			in.Name, err = textField(k, raw, maxAgentName, true)
		case "description":
			in.Description, err = textField(k, raw, maxDescriptionChars, false)
		case "intents_api_enabled":
			in.IntentsAPIEnabled, err = boolField(k, raw)
		case "skip_default_policy", "api_key_expires_at":
			if !create {
				return in, badField(k, "can be set only at registration (rotate-key sets a new key expiry)")
			}
			if k == "skip_default_policy" {
				in.SkipPolicy, err = boolField(k, raw)
			} else if !null {
				var t time.Time
				if json.Unmarshal(raw, &t) != nil || !t.After(now) {
					return in, badField(k, "must be a future RFC 3339 timestamp")
				}
				in.APIKeyExpiresAt = &t
			}
		case "environment":
			if null {
				in.ClearEnvironment = true
				continue
			}
			in.Environment, err = textField(k, raw, maxEnvironment, true)
		case "scopes":
			in.SetScopes = true
			if !null {
				in.Scopes, err = scopesField(raw)
			}
		default:
			kind, ok := policy.GuardrailFields[k]
			if !ok {
				return in, badField("field "+k, "is unknown")
			}
			if !null && !kind.Matches(raw) {
				return in, badField(k, "has the wrong JSON type")
			}
			in.Guardrails[k] = raw
		}
		if err != nil {
			return in, err
		}
	}
	if create && in.Name == nil {
		return in, badField("name", "is required")
	}
	return in, nil
}

func textField(name string, raw json.RawMessage, max int, required bool) (*string, error) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return nil, badField(name, "must be a string")
	}
	s, err := trimmedText(name, s, max, required)
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// trimmedText trims s and checks that it has at most max characters (at
// least one when required) and no control character.
func trimmedText(name, s string, max int, required bool) (string, error) {
	s = strings.TrimSpace(s)
	n := utf8.RuneCountInString(s)
	if (required && n < 1) || n > max || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		if required {
			return "", badField(name, "must be 1 to "+itoa(max)+" characters after trimming, without control characters")
		}
		return "", badField(name, "must be at most "+itoa(max)+" characters, without control characters")
	}
	return s, nil
}

func boolField(name string, raw json.RawMessage) (*bool, error) {
	var b bool
	if json.Unmarshal(raw, &b) != nil {
		return nil, badField(name, "must be a boolean")
	}
	return &b, nil
}

func scopesField(raw json.RawMessage) ([]string, error) {
	var ss []string
	if json.Unmarshal(raw, &ss) != nil || len(ss) > maxScopes {
		return nil, badField("scopes", "must be an array of at most 256 path patterns, or null")
	}
	for _, s := range ss {
		if policy.ValidatePattern(s) != nil || checkText(s) != nil {
			return nil, badField("scopes", "holds an invalid path pattern")
		}
	}
	if ss == nil {
		ss = []string{}
	}
	return ss, nil
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
