package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/opencustody/ocv/api"
)

// handleOut is what get_secret answers when values are not revealed.
type handleOut struct {
	Handle    string          `json:"handle"`
	VaultID   string          `json:"vault_id"`
	Path      string          `json:"path"`
	Type      string          `json:"type"`
	Version   uint32          `json:"version"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
	ExpiresAt *string         `json:"expires_at"`
	Note      string          `json:"note"`
}

const handleNote = "this server does not reveal secret values; pass the handle to a trusted process that resolves it"

// Handle is the reference to one version of a secret returned instead of
// its value: ocv://<vault_id>/<path>#v<version>, path segments
// percent-encoded.
func Handle(vaultID, path string, version uint32) string {
	esc, err := escapePath(path)
	if err != nil {
		esc = url.PathEscape(path)
	}
	return fmt.Sprintf("ocv://%s/%s#v%d", vaultID, esc, version)
}

func secretURL(vaultID, path string) (string, error) {
	esc, err := escapePath(path)
	if err != nil {
		return "", err
	}
	return "/v1/vaults/" + url.PathEscape(vaultID) + "/secrets/" + esc, nil
}

func (t *tools) listSecrets(ctx context.Context, _ *mcp.CallToolRequest, in listSecretsArgs) (*mcp.CallToolResult, any, error) {
	v, err := t.vaultID(in.VaultID)
	if err != nil {
		return nil, nil, err
	}
	secs, err := t.secretsUnder(ctx, v, in.Prefix)
	if err != nil {
		return nil, nil, err
	}
	return nil, map[string]any{"vault_id": v, "prefix": in.Prefix, "secrets": secs}, nil
}

func (t *tools) getSecret(ctx context.Context, _ *mcp.CallToolRequest, in pathArgs) (*mcp.CallToolResult, any, error) {
	v, err := t.vaultID(in.VaultID)
	if err != nil {
		return nil, nil, err
	}
	if !t.reveal {
		s, err := t.findSecret(ctx, v, in.Path)
		if err != nil {
			return nil, nil, err
		}
		return nil, toHandle(v, s), nil
	}
	s, err := t.readSecret(ctx, v, in.Path)
	if err != nil {
		return nil, nil, err
	}
	return nil, s, nil
}

func toHandle(vaultID string, s api.Secret) handleOut {
	return handleOut{Handle: Handle(vaultID, s.Path, s.Version), VaultID: vaultID, Path: s.Path, Type: s.Type,
		Version: s.Version, Metadata: s.Metadata, ExpiresAt: s.ExpiresAt, Note: handleNote}
}

func (t *tools) describeSecret(ctx context.Context, _ *mcp.CallToolRequest, in pathArgs) (*mcp.CallToolResult, any, error) {
	v, err := t.vaultID(in.VaultID)
	if err != nil {
		return nil, nil, err
	}
	s, err := t.findSecret(ctx, v, in.Path)
	if err != nil {
		return nil, nil, err
	}
	return nil, s, nil
}

// writeOut is what the writing tools answer: never a value.
type writeOut struct {
	ID              string `json:"id"`
	VaultID         string `json:"vault_id"`
	Path            string `json:"path"`
	Type            string `json:"type"`
	Version         uint32 `json:"version"`
	PreviousVersion uint32 `json:"previous_version,omitempty"`
	Created         bool   `json:"created"`
}

func (t *tools) putSecret(ctx context.Context, _ *mcp.CallToolRequest, in putSecretArgs) (*mcp.CallToolResult, any, error) {
	v, err := t.vaultID(in.VaultID)
	if err != nil {
		return nil, nil, err
	}
	typ := in.Type
	if typ == "" {
		typ = "generic"
	}
	body := api.SecretWrite{Type: &typ, Value: &in.Value}
	if in.Encoding != "" {
		body.Encoding = &in.Encoding
	}
	s, status, err := t.writeSecret(ctx, v, in.Path, body)
	if err != nil {
		return nil, nil, err
	}
	return nil, writeOut{ID: s.ID, VaultID: v, Path: s.Path, Type: s.Type, Version: s.Version,
		Created: status == http.StatusCreated}, nil
}

func (t *tools) rotateAndStore(ctx context.Context, _ *mcp.CallToolRequest, in rotateArgs) (*mcp.CallToolResult, any, error) {
	v, err := t.vaultID(in.VaultID)
	if err != nil {
		return nil, nil, err
	}
	old, err := t.findSecret(ctx, v, in.Path)
	if errors.Is(err, ErrSecretNotFound) {
		return nil, nil, fmt.Errorf("%w: rotate_and_store replaces an existing secret; use put_secret to create one", err)
	}
	if err != nil {
		return nil, nil, err
	}
	body := api.SecretWrite{Type: &old.Type, Value: &in.Value}
	if len(old.Metadata) > 0 && string(old.Metadata) != "null" {
		if err := json.Unmarshal(old.Metadata, &body.Metadata); err != nil {
			return nil, nil, fmt.Errorf("reading secret %s: %w", old.Path, ErrBadAnswer)
		}
	}
	if old.ExpiresAt != nil {
		if exp, err := time.Parse(time.RFC3339, *old.ExpiresAt); err == nil && exp.After(t.now()) {
			body.ExpiresAt = &exp
		}
	}
	s, _, err := t.writeSecret(ctx, v, old.Path, body)
	if err != nil {
		return nil, nil, err
	}
	return nil, writeOut{ID: s.ID, VaultID: v, Path: s.Path, Type: s.Type, Version: s.Version,
		PreviousVersion: old.Version}, nil
}

// readSecret reads one secret with its value.
func (t *tools) readSecret(ctx context.Context, vaultID, path string) (api.Secret, error) {
	u, err := secretURL(vaultID, path)
	if err != nil {
		return api.Secret{}, err
	}
	var s api.Secret
	if _, err := t.api.callJSON(ctx, http.MethodGet, u, nil, nil, &s); err != nil {
		return api.Secret{}, fmt.Errorf("reading secret %s: %w", path, err)
	}
	if s.Value == nil {
		return api.Secret{}, fmt.Errorf("reading secret %s: %w", path, ErrBadAnswer)
	}
	return s, nil
}

// writeSecret writes a new version and returns the metadata and status.
func (t *tools) writeSecret(ctx context.Context, vaultID, path string, body api.SecretWrite) (api.Secret, int, error) {
	u, err := secretURL(vaultID, path)
	if err != nil {
		return api.Secret{}, 0, err
	}
	var s api.Secret
	status, err := t.api.callJSON(ctx, http.MethodPut, u, nil, body, &s)
	if err != nil {
		return api.Secret{}, 0, fmt.Errorf("writing secret %s: %w", path, err)
	}
	s.Value = nil
	return s, status, nil
}

// findSecret returns the metadata of the secret at path from the listing,
// without opening its value.
func (t *tools) findSecret(ctx context.Context, vaultID, path string) (api.Secret, error) {
	if _, err := escapePath(path); err != nil {
		return api.Secret{}, err
	}
	secs, err := t.secretsUnder(ctx, vaultID, path)
	if err != nil {
		return api.Secret{}, err
	}
	for _, s := range secs {
		if s.Path == path {
			return s, nil
		}
	}
	return api.Secret{}, fmt.Errorf("%w: %s in vault %s", ErrSecretNotFound, path, vaultID)
}

// secretsUnder lists every secret whose path starts with prefix.
func (t *tools) secretsUnder(ctx context.Context, vaultID, prefix string) ([]api.Secret, error) {
	q := url.Values{}
	if prefix != "" {
		q.Set("prefix", prefix)
	}
	out := []api.Secret{}
	err := t.list(ctx, "/v1/vaults/"+url.PathEscape(vaultID)+"/secrets", q, func(raw json.RawMessage) error {
		var s api.Secret
		if err := json.Unmarshal(raw, &s); err != nil {
			return ErrBadAnswer
		}
		if strings.HasPrefix(s.Path, prefix) {
			s.Value = nil
			out = append(out, s)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing secrets of vault %s: %w", vaultID, err)
	}
	return out, nil
}
