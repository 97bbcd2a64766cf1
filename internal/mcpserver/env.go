package mcpserver

import (
	"context"
	"fmt"
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
	out := envBundleOut{VaultID: v, Path: prefix, Env: map[string]string{}, Paths: map[string]string{}, Revealed: t.reveal}
	for _, s := range all {
		if !underPrefix(s.Path, prefix) {
			continue
		}
		name := api.EnvName(s.Path)
		if prev, dup := out.Paths[name]; dup {
			return nil, nil, fmt.Errorf("%w: %s and %s both map to %s", ErrEnvConflict, prev, s.Path, name)
		}
		out.Paths[name] = s.Path
		if !t.reveal {
			out.Env[name] = Handle(v, s.Path, s.Version)
			continue
		}
		full, err := t.readSecret(ctx, v, s.Path)
		if err != nil {
			return nil, nil, err
		}
		out.Env[name] = *full.Value
	}
	if len(out.Paths) == 0 {
		return nil, nil, fmt.Errorf("%w: %q in vault %s", ErrNoSecrets, prefix, v)
	}
	if !t.reveal {
		out.Note = handleNote
	}
	return nil, out, nil
}
