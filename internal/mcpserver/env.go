package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/opencustody/ocv/api"
)

// underPrefix reports whether path is prefix itself or inside it as a folder.
func underPrefix(path, prefix string) bool {
	return prefix == "" || path == prefix || strings.HasPrefix(path, prefix+"/")
}

// envBundleOut is get_env_bundle's answer: Env maps names to values, or to
// handles when values are not revealed; Paths maps names to secret paths.
type envBundleOut struct {
	VaultID  string            `json:"vault_id"`
	Path     string            `json:"path"`
	Env      map[string]string `json:"env"`
	Paths    map[string]string `json:"paths"`
	Revealed bool              `json:"revealed"`
	Note     string            `json:"note,omitempty"`
	// Denied lists the secrets left out because this agent may not read
	// them, with the API's problem type as the reason (private_key_blocked:
	// an agent with the intents API never reads private_key or ssh_key
	// secrets; policy_denied).
	Denied []deniedVar `json:"denied"`
}

// deniedVar is one secret a bundle left out.
type deniedVar struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// rawKeyType reports whether a secret type is one an agent with the
// intents API never reads.
func rawKeyType(typ string) bool { return typ == "private_key" || typ == "ssh_key" }

// intentsEnabled reads whether this agent has the intents API enabled (GET
// /v1/agents/me, asked each time: the setting can change). An answer that
// cannot be read counts as enabled (fail closed).
func (t *tools) intentsEnabled(ctx context.Context) bool {
	var me struct {
		IntentsAPIEnabled *bool `json:"intents_api_enabled"`
	}
	if _, err := t.api.callJSON(ctx, http.MethodGet, "/v1/agents/me", nil, nil, &me); err != nil || me.IntentsAPIEnabled == nil {
		return true
	}
	return *me.IntentsAPIEnabled
}

// deniedReason is the problem type of an API refusal to read a secret,
// or "" when err is not such a refusal.
func deniedReason(err error) string {
	var ae *APIError
	if errors.As(err, &ae) && ae.Status == http.StatusForbidden &&
		(ae.Type == "private_key_blocked" || ae.Type == "policy_denied") {
		return ae.Type
	}
	return ""
}

func (t *tools) getEnvBundle(ctx context.Context, _ *mcp.CallToolRequest, in envBundleArgs) (*mcp.CallToolResult, any, error) {
	v, err := t.vaultID(in.VaultID)
	if err != nil {
		return nil, nil, err
	}
	prefix := strings.Trim(in.Path, "/")
	if prefix != "" {
		if _, err := escapePath(prefix); err != nil {
			return nil, nil, err
		}
	}
	all, err := t.secretsUnder(ctx, v, prefix)
	if err != nil {
		return nil, nil, err
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Path < all[j].Path })
	out := envBundleOut{VaultID: v, Path: prefix, Env: map[string]string{}, Paths: map[string]string{}, Revealed: t.reveal, Denied: []deniedVar{}}
	intents := -1 // unknown until a private_key or ssh_key is met
	for _, s := range all {
		if !underPrefix(s.Path, prefix) {
			continue
		}
		name := api.EnvName(s.Path)
		if prev, dup := out.Paths[name]; dup {
			return nil, nil, fmt.Errorf("%w: %s and %s both map to %s", ErrEnvConflict, prev, s.Path, name)
		}
		if rawKeyType(s.Type) {
			if intents < 0 {
				intents = 0
				if t.intentsEnabled(ctx) {
					intents = 1
				}
			}
			if intents == 1 {
				out.Denied = append(out.Denied, deniedVar{Name: name, Path: s.Path, Reason: "private_key_blocked"})
				continue
			}
		}
		if !t.reveal {
			out.Paths[name] = s.Path
			out.Env[name] = Handle(v, s.Path, s.Version)
			continue
		}
		full, err := t.readSecret(ctx, v, s.Path)
		if reason := deniedReason(err); reason != "" {
			out.Denied = append(out.Denied, deniedVar{Name: name, Path: s.Path, Reason: reason})
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if full.Encoding == "base64" {
			// An environment variable is text: a binary value is not
			// altered into one.
			out.Denied = append(out.Denied, deniedVar{Name: name, Path: s.Path, Reason: "binary_value"})
			continue
		}
		out.Paths[name] = s.Path
		out.Env[name] = *full.Value
	}
	if len(out.Paths) == 0 && len(out.Denied) == 0 {
		return nil, nil, fmt.Errorf("%w: %q in vault %s", ErrNoSecrets, prefix, v)
	}
	if !t.reveal {
		out.Note = handleNote
	}
	return nil, out, nil
}
