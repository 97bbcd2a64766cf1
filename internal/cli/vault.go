package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/opencustody/ocv/api"
)

// page is one page of a list answer, its items left undecoded.
type page = api.List[json.RawMessage]

// listAll follows next_cursor and returns every item.
func listAll(ctx context.Context, c *client, path string, query url.Values) ([]json.RawMessage, error) {
	if query == nil {
		query = url.Values{}
	}
	query.Set("limit", "500")
	var all []json.RawMessage
	for {
		body, err := c.call(ctx, http.MethodGet, path, query, nil)
		if err != nil {
			return nil, err
		}
		var p page
		if err := json.Unmarshal(body, &p); err != nil {
			return nil, fmt.Errorf("decoding list answer of %s: %w", path, err)
		}
		all = append(all, p.Items...)
		if p.NextCursor == nil || *p.NextCursor == "" {
			return all, nil
		}
		query.Set("cursor", *p.NextCursor)
	}
}

// listJSON prints every item as one list answer without a cursor.
func listJSON(e *cmdEnv, items []json.RawMessage) error {
	if items == nil {
		items = []json.RawMessage{}
	}
	b, err := json.Marshal(page{Items: items})
	if err != nil {
		return fmt.Errorf("encoding output: %w", err)
	}
	return rawJSON(e.stdout, b)
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// resolveVault turns a vault id or name into its id.
func resolveVault(ctx context.Context, c *client, v string) (string, error) {
	if v == "" {
		return "", fmt.Errorf("%w: --vault is required", ErrUsage)
	}
	if uuidRE.MatchString(v) {
		return strings.ToLower(v), nil
	}
	items, err := listAll(ctx, c, "/v1/vaults", nil)
	if err != nil {
		return "", err
	}
	for _, raw := range items {
		var vi api.Vault
		if err := json.Unmarshal(raw, &vi); err == nil && vi.Name == strings.TrimSpace(v) {
			return vi.ID, nil
		}
	}
	return "", fmt.Errorf("%w: no vault named %q (see ocv vault list)", ErrVaultNotFound, v)
}

func printVault(e *cmdEnv, body []byte) error {
	if e.g.json {
		return rawJSON(e.stdout, body)
	}
	var v api.Vault
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("decoding vault: %w", err)
	}
	return fields(e.stdout, [][2]string{{"id", v.ID}, {"name", v.Name}, {"description", v.Description},
		{"kek_version", fmt.Sprint(v.KEKVersion)}, {"created_at", v.CreatedAt}, {"updated_at", v.UpdatedAt}})
}

func vaultCreate(ctx context.Context, e *cmdEnv, args []string) error {
	fs := e.flags("ocv vault create", "ocv vault create NAME [--description D]")
	desc := fs.String("description", "", "what the vault holds")
	pos, err := positional(fs, args, "NAME")
	if err != nil {
		return err
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	body, err := c.call(ctx, http.MethodPost, "/v1/vaults", nil, api.VaultCreate{Name: &pos[0], Description: *desc})
	if err != nil {
		return err
	}
	return printVault(e, body)
}

func vaultList(ctx context.Context, e *cmdEnv, args []string) error {
	return listCommand(ctx, e, args, "vault", "/v1/vaults", []string{"ID", "NAME", "DESCRIPTION", "CREATED"},
		func(v api.Vault) []string { return []string{v.ID, v.Name, v.Description, v.CreatedAt} })
}

func vaultGet(ctx context.Context, e *cmdEnv, args []string) error {
	fs := e.flags("ocv vault get", "ocv vault get ID|NAME")
	pos, err := positional(fs, args, "ID")
	if err != nil {
		return err
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	id, err := resolveVault(ctx, c, pos[0])
	if err != nil {
		return err
	}
	body, err := c.call(ctx, http.MethodGet, "/v1/vaults/"+url.PathEscape(id), nil, nil)
	if err != nil {
		return err
	}
	return printVault(e, body)
}

func vaultDelete(ctx context.Context, e *cmdEnv, args []string) error {
	fs := e.flags("ocv vault delete", "ocv vault delete ID")
	pos, err := positional(fs, args, "ID")
	if err != nil {
		return err
	}
	// Deleting takes the id itself: a name could match a vault other than the one meant.
	if !uuidRE.MatchString(pos[0]) {
		return fmt.Errorf("%w: vault delete takes the vault id (see ocv vault list)", ErrUsage)
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	if _, err := c.call(ctx, http.MethodDelete, "/v1/vaults/"+url.PathEscape(pos[0]), nil, nil); err != nil {
		return err
	}
	if e.g.json {
		return rawJSON(e.stdout, []byte(`{"deleted":true}`))
	}
	fmt.Fprintf(e.stdout, "Deleted vault %s\n", pos[0])
	return nil
}
