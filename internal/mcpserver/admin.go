package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/opencustody/ocv/api"
)

// listPageSize and maxListPages bound one listing (500 items a page).
const (
	listPageSize = 500
	maxListPages = 100
)

// sharePath is the share endpoint as the API's OpenAPI document names it.
const sharePath = "/v1/secrets/{secret_id}/share"

// list walks every page of a list endpoint.
func (t *tools) list(ctx context.Context, path string, q url.Values, each func(json.RawMessage) error) error {
	q.Set("limit", fmt.Sprint(listPageSize))
	for range maxListPages {
		var page api.List[json.RawMessage]
		if _, err := t.api.callJSON(ctx, http.MethodGet, path, q, nil, &page); err != nil {
			return err
		}
		for _, it := range page.Items {
			if err := each(it); err != nil {
				return err
			}
		}
		if page.NextCursor == nil || *page.NextCursor == "" {
			return nil
		}
		q.Set("cursor", *page.NextCursor)
	}
	return fmt.Errorf("more than %d items: %w", listPageSize*maxListPages, ErrBadAnswer)
}

func (t *tools) listVaults(ctx context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
	vaults := []json.RawMessage{}
	err := t.list(ctx, "/v1/vaults", url.Values{}, func(raw json.RawMessage) error {
		vaults = append(vaults, raw)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("listing vaults: %w", err)
	}
	return nil, map[string]any{"vaults": vaults, "default_vault_id": t.vault}, nil
}

func (t *tools) createVault(ctx context.Context, _ *mcp.CallToolRequest, in createVaultArgs) (*mcp.CallToolResult, any, error) {
	var v json.RawMessage
	if _, err := t.api.callJSON(ctx, http.MethodPost, "/v1/vaults", nil,
		api.VaultCreate{Name: &in.Name, Description: in.Description}, &v); err != nil {
		return nil, nil, fmt.Errorf("creating vault: %w", err)
	}
	return nil, v, nil
}

func (t *tools) grantAccess(ctx context.Context, _ *mcp.CallToolRequest, in grantAccessArgs) (*mcp.CallToolResult, any, error) {
	v, err := t.vaultID(in.VaultID)
	if err != nil {
		return nil, nil, err
	}
	pattern := in.SecretPathPattern
	if pattern == "" {
		pattern = "**"
	}
	body := api.PolicyWrite{SecretPathPattern: &pattern, PrincipalType: &in.PrincipalType,
		PrincipalID: &in.PrincipalID, Permissions: in.Permissions}
	var p json.RawMessage
	if _, err := t.api.callJSON(ctx, http.MethodPost, "/v1/vaults/"+url.PathEscape(v)+"/policies", nil, body, &p); err != nil {
		return nil, nil, fmt.Errorf("granting access: %w", err)
	}
	return nil, p, nil
}

func (t *tools) shareSecret(ctx context.Context, _ *mcp.CallToolRequest, in shareArgs) (*mcp.CallToolResult, any, error) {
	ok, err := t.sharingAvailable(ctx)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		return nil, nil, ErrSharingUnavailable
	}
	id := strings.TrimSpace(in.SecretID)
	if id == "" || strings.ContainsAny(id, "/?#") {
		return nil, nil, fmt.Errorf("secret_id %q is not a secret id", in.SecretID)
	}
	body := map[string]any{"recipient_type": "creator", "expires_at": in.ExpiresAt, "max_access_count": in.MaxAccessCount}
	if in.Email != "" {
		body["recipient_type"], body["email"] = "external_email", in.Email
	}
	var s json.RawMessage
	if _, err := t.api.callJSON(ctx, http.MethodPost, "/v1/secrets/"+url.PathEscape(id)+"/share", nil, body, &s); err != nil {
		return nil, nil, fmt.Errorf("sharing secret: %w", err)
	}
	return nil, s, nil
}

// sharingAvailable reports whether the API's OpenAPI document lists the
// share endpoint. A positive answer is remembered; a negative one is asked
// again next time, so a server upgraded while we run is noticed.
func (t *tools) sharingAvailable(ctx context.Context) (bool, error) {
	if t.shareOK.Load() {
		return true, nil
	}
	status, body, err := t.api.send(ctx, http.MethodGet, "/openapi.json", nil, nil, nil, "")
	if err != nil {
		return false, fmt.Errorf("checking for the share endpoint: %w", err)
	}
	if status != http.StatusOK {
		return false, nil
	}
	var doc struct {
		Paths map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return false, nil
	}
	_, ok := doc.Paths[sharePath]
	if ok {
		t.shareOK.Store(true)
	}
	return ok, nil
}
