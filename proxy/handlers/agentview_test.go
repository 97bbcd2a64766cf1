package handlers

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/policy"
)

// The view shows every guardrail field by the name policy knows it: the
// guardrail fields of api.Agent are exactly policy.GuardrailFields.
func TestAgentViewGuardrailFields(t *testing.T) {
	var view []string
	typ := reflect.TypeFor[api.Agent]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Type == reflect.TypeFor[json.RawMessage]() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			view = append(view, name)
		}
	}
	var fields []string
	for k := range policy.GuardrailFields {
		fields = append(fields, k)
	}
	slices.Sort(view)
	slices.Sort(fields)
	require.Equal(t, fields, view)
}

func TestAgentView(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := map[string]struct {
		agent store.Agent
		want  map[string]any
	}{
		"ok defaults only": {
			agent: store.Agent{ID: "a1", Name: "bot", Status: store.AgentActive, KeyLastFour: "abcd", CreatedBy: "u1",
				CreatedAt: now, UpdatedAt: now},
			want: map[string]any{"id": "a1", "name": "bot", "description": "", "status": "active", "intents_api_enabled": false,
				"environment": nil, "scopes": nil, "api_key_prefix": "ocv_", "api_key_last_four": "abcd", "api_key_expires_at": nil,
				"created_by": "u1", "created_at": "2025-01-02T03:04:05Z", "updated_at": "2025-01-02T03:04:05Z",
				"execution_intents_enabled": false, "raw_signing_enabled": false, "intents_require_tee": false,
				"execution_require_tee": false, "card_require_approval": true, "delegation_enabled": false,
				"pay_require_passkey": true},
		},
		"ok stored over defaults": {
			agent: store.Agent{ID: "a2", Name: "bot", Status: store.AgentInactive, Environment: "preview", Scopes: []string{},
				Guardrails: []byte(`{"card_require_approval":false,"tx_max_value_eth":"0.5","signing_chains":["base"]}`),
				CreatedAt:  now, UpdatedAt: now},
			want: map[string]any{"id": "a2", "name": "bot", "description": "", "status": "inactive", "intents_api_enabled": false,
				"environment": "preview", "scopes": []any{}, "api_key_prefix": "ocv_", "api_key_last_four": "",
				"api_key_expires_at": nil, "created_by": "", "created_at": "2025-01-02T03:04:05Z",
				"updated_at": "2025-01-02T03:04:05Z", "execution_intents_enabled": false, "raw_signing_enabled": false,
				"intents_require_tee": false, "execution_require_tee": false, "card_require_approval": false,
				"delegation_enabled": false, "pay_require_passkey": true, "tx_max_value_eth": "0.5",
				"signing_chains": []any{"base"}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			b, err := json.Marshal(agentView(tc.agent))
			require.NoError(t, err)
			var got map[string]any
			require.NoError(t, json.Unmarshal(b, &got))
			require.Equal(t, tc.want, got)
		})
	}
}
