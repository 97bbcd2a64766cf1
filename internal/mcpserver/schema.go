package mcpserver

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SecretTypes are the values the API accepts as a secret's type.
var SecretTypes = []string{"api_key", "password", "private_key", "ssh_key", "payment_card", "gift_card",
	"certificate", "token", "generic"}

// Permissions are the values a policy grants.
var Permissions = []string{"read", "write"}

// PrincipalTypes are the kinds of principal a policy names.
var PrincipalTypes = []string{"user", "agent"}

// SecretToolNames are the secrets and administration tools, in
// registration order.
var SecretToolNames = []string{"list_vaults", "list_secrets", "get_secret", "put_secret", "describe_secret",
	"rotate_and_store", "get_env_bundle", "create_vault", "grant_access", "share_secret"}

// ToolNames are the tools the server offers, in registration order: the
// secrets tools, then the Intents API tools.
var ToolNames = slices.Concat(SecretToolNames, IntentToolNames)

// schemaFor infers the input schema of T and lets edit add enums and
// defaults. It panics on an inference error: the types are ours.
func schemaFor[T any](edit func(props map[string]*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("inferring tool schema: %v", err))
	}
	if edit != nil {
		edit(s.Properties)
	}
	return s
}

func enum(vals []string) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = v
	}
	return out
}

func withDefault(s *jsonschema.Schema, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("encoding schema default: %v", err))
	}
	s.Default = b
}

func readOnly() *mcp.ToolAnnotations { return &mcp.ToolAnnotations{ReadOnlyHint: true} }
