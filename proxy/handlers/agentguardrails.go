package handlers

import (
	"encoding/json"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/policy"
)

// maxGuardrailBytes bounds an agent's stored guardrail object.
const maxGuardrailBytes = 64 << 10

// mergeGuardrails applies set (null removes a field) to the stored object.
func mergeGuardrails(stored []byte, set map[string]json.RawMessage) ([]byte, error) {
	m := map[string]json.RawMessage{}
	if len(stored) > 0 {
		if err := json.Unmarshal(stored, &m); err != nil {
			return nil, err
		}
	}
	for k, v := range set {
		if string(v) == "null" {
			delete(m, k)
			continue
		}
		m[k] = v
	}
	out, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if len(out) > maxGuardrailBytes {
		return nil, problem.BadRequest(problem.TypeInvalidRequest, "the guardrail fields are larger than 64 KiB")
	}
	// The signing guardrails must parse as the enclave will read them.
	if _, err := policy.ParseGuardrails(m); err != nil {
		return nil, problem.BadRequest(problem.TypeInvalidRequest, "invalid guardrail: "+err.Error())
	}
	return out, nil
}
