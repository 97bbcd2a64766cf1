package mcpserver

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type noArgs struct{}

type listSecretsArgs struct {
	Prefix  string `json:"prefix,omitempty" jsonschema:"only paths starting with this prefix (for example prod/)"`
	VaultID string `json:"vault_id,omitempty" jsonschema:"vault id; defaults to the server's configured vault"`
}

type pathArgs struct {
	Path    string `json:"path" jsonschema:"secret path, slash-separated (for example prod/db/password)"`
	VaultID string `json:"vault_id,omitempty" jsonschema:"vault id; defaults to the server's configured vault"`
}

type putSecretArgs struct {
	Path  string `json:"path" jsonschema:"secret path, slash-separated (for example prod/db/password)"`
	Value string `json:"value" jsonschema:"the secret value (at most 512 KiB)"`
	// Encoding is "utf8" (the default) or "base64" for a binary value.
	Encoding string `json:"encoding,omitempty" jsonschema:"utf8 (default: value is text) or base64 (value is standard padded base64 of arbitrary bytes, stored as those bytes)"`
	Type     string `json:"type,omitempty" jsonschema:"kind of secret"`
	VaultID  string `json:"vault_id,omitempty" jsonschema:"vault id; defaults to the server's configured vault"`
}

type rotateArgs struct {
	Path    string `json:"path" jsonschema:"path of an existing secret"`
	Value   string `json:"value" jsonschema:"the new value, stored as a new version"`
	VaultID string `json:"vault_id,omitempty" jsonschema:"vault id; defaults to the server's configured vault"`
}

type envBundleArgs struct {
	Path    string `json:"path" jsonschema:"a secret path or a folder prefix: every secret at or under it becomes one variable"`
	VaultID string `json:"vault_id,omitempty" jsonschema:"vault id; defaults to the server's configured vault"`
}

type createVaultArgs struct {
	Name        string `json:"name" jsonschema:"vault name, unique in the organization"`
	Description string `json:"description,omitempty" jsonschema:"free-text description"`
}

type grantAccessArgs struct {
	VaultID           string   `json:"vault_id" jsonschema:"the vault the policy applies to"`
	PrincipalType     string   `json:"principal_type" jsonschema:"who is granted access"`
	PrincipalID       string   `json:"principal_id" jsonschema:"the user or agent id"`
	Permissions       []string `json:"permissions" jsonschema:"what the principal may do"`
	SecretPathPattern string   `json:"secret_path_pattern,omitempty" jsonschema:"glob over secret paths (* one segment, ** any depth)"`
}

type shareArgs struct {
	SecretID       string `json:"secret_id" jsonschema:"the secret's id (from describe_secret)"`
	Email          string `json:"email,omitempty" jsonschema:"recipient email; without it the share is for the creator"`
	ExpiresAt      string `json:"expires_at" jsonschema:"RFC 3339 time the share stops working"`
	MaxAccessCount int    `json:"max_access_count" jsonschema:"how many times the share may be opened"`
}

// register adds every tool to srv: the ten secrets tools, then the
// Intents API tools (registerIntents).
func (t *tools) register(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{Name: "list_vaults", Annotations: readOnly(),
		Description: "List the vaults this agent can see (id, name, description)."}, t.listVaults)
	mcp.AddTool(srv, &mcp.Tool{Name: "list_secrets", Annotations: readOnly(),
		Description: "List secret paths and metadata in a vault, optionally under a prefix. Never returns values.",
		InputSchema: schemaFor[listSecretsArgs](nil)}, t.listSecrets)
	getDoc := "Read a secret: its value, type and version."
	if !t.reveal {
		getDoc = "Look up a secret and return a handle (ocv://<vault_id>/<path>#v<version>) with its type and version; " +
			"this server does not reveal values."
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "get_secret", Annotations: readOnly(), Description: getDoc,
		InputSchema: schemaFor[pathArgs](nil)}, t.getSecret)
	mcp.AddTool(srv, &mcp.Tool{Name: "put_secret",
		Description: "Create a secret or write a new version of it. Returns the version written, never the value.",
		InputSchema: schemaFor[putSecretArgs](func(p map[string]*jsonschema.Schema) {
			p["type"].Enum = enum(SecretTypes)
			withDefault(p["type"], "generic")
			p["path"].MinLength = ptr(1)
		})}, t.putSecret)
	mcp.AddTool(srv, &mcp.Tool{Name: "describe_secret", Annotations: readOnly(),
		Description: "Show a secret's metadata (id, type, version, metadata, expiry, timestamps) without its value.",
		InputSchema: schemaFor[pathArgs](nil)}, t.describeSecret)
	mcp.AddTool(srv, &mcp.Tool{Name: "rotate_and_store",
		Description: "Store a new value for an existing secret as a new version (type and metadata kept). " +
			"Returns the new version number, never the old or new value.",
		InputSchema: schemaFor[rotateArgs](nil)}, t.rotateAndStore)
	envDoc := "Every secret at or under a path as environment variables: NAME -> value, where NAME is the last " +
		"path segment upper-cased with other characters turned into '_' (the `ocv run` rule)."
	if !t.reveal {
		envDoc = "Every secret at or under a path as environment variable names mapped to handles " +
			"(ocv://<vault_id>/<path>#v<version>); NAME is the last path segment upper-cased with other characters " +
			"turned into '_'. This server does not reveal values."
	}
	envDoc += " Secrets this agent may not read are listed under denied with the reason (private_key_blocked: " +
		"an agent with the Intents API never reads private_key or ssh_key secrets; it signs through OCV)."
	mcp.AddTool(srv, &mcp.Tool{Name: "get_env_bundle", Annotations: readOnly(), Description: envDoc,
		InputSchema: schemaFor[envBundleArgs](nil)}, t.getEnvBundle)
	mcp.AddTool(srv, &mcp.Tool{Name: "create_vault",
		Description: "Create a vault (needs a human principal; agents are refused by the API).",
		InputSchema: schemaFor[createVaultArgs](func(p map[string]*jsonschema.Schema) {
			p["name"].MinLength = ptr(1)
		})}, t.createVault)
	mcp.AddTool(srv, &mcp.Tool{Name: "grant_access",
		Description: "Grant a user or agent read and/or write access to secrets of a vault with an allow policy " +
			"(owners and admins only).",
		InputSchema: schemaFor[grantAccessArgs](func(p map[string]*jsonschema.Schema) {
			p["principal_type"].Enum = enum(PrincipalTypes)
			p["permissions"].Items.Enum = enum(Permissions)
			p["permissions"].MinItems = ptr(1)
			p["permissions"].UniqueItems = true
			withDefault(p["secret_path_pattern"], "**")
		})}, t.grantAccess)
	mcp.AddTool(srv, &mcp.Tool{Name: "share_secret",
		Description: "Share a secret through an expiring, count-limited share link.",
		InputSchema: schemaFor[shareArgs](func(p map[string]*jsonschema.Schema) {
			p["expires_at"].Format = "date-time"
			p["max_access_count"].Minimum = ptr(1.0)
			p["email"].Format = "email"
		})}, t.shareSecret)
	t.registerIntents(srv)
}

func ptr[T any](v T) *T { return &v }
