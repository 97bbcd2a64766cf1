package mcpserver

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// connect starts a server for cfg and returns a connected SDK client session.
func connect(t *testing.T, cfg Config) *mcp.ClientSession {
	t.Helper()
	srv, err := New(cfg)
	require.NoError(t, err)
	st, ct := mcp.NewInMemoryTransports()
	ctx := t.Context()
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// call runs a tool and returns its structured result and error text.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (map[string]any, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if res.IsError {
		return nil, text.String()
	}
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(text.String()), &out))
	return out, ""
}

func TestToolsList(t *testing.T) {
	f := newFakeAPI(t)
	cs := connect(t, f.config(true))
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	byName := map[string]*mcp.Tool{}
	var names []string
	for _, tl := range res.Tools {
		byName[tl.Name] = tl
		names = append(names, tl.Name)
	}
	require.ElementsMatch(t, ToolNames, names)
	props := func(tool string) map[string]any {
		s := byName[tool].InputSchema.(map[string]any)
		require.Equal(t, "object", s["type"], tool)
		p, _ := s["properties"].(map[string]any)
		return p
	}
	required := func(tool string) []any {
		r, _ := byName[tool].InputSchema.(map[string]any)["required"].([]any)
		return r
	}
	require.Empty(t, props("list_vaults"))
	require.ElementsMatch(t, []any{"path", "value"}, required("put_secret"))
	require.ElementsMatch(t, []any{"path"}, required("get_secret"))
	require.ElementsMatch(t, []any{"path", "value"}, required("rotate_and_store"))
	require.ElementsMatch(t, []any{"name"}, required("create_vault"))
	require.ElementsMatch(t, []any{"vault_id", "principal_type", "principal_id", "permissions"}, required("grant_access"))
	require.ElementsMatch(t, []any{"secret_id", "expires_at", "max_access_count"}, required("share_secret"))
	require.Contains(t, props("get_secret"), "vault_id")
	require.Len(t, props("put_secret")["type"].(map[string]any)["enum"], len(SecretTypes))
	require.ElementsMatch(t, []any{"user", "agent"}, props("grant_access")["principal_type"].(map[string]any)["enum"])
	items := props("grant_access")["permissions"].(map[string]any)["items"].(map[string]any)
	require.ElementsMatch(t, []any{"read", "write"}, items["enum"])
}

func TestSecretTools(t *testing.T) {
	f := newFakeAPI(t)
	f.seed("prod/db/password", "password", "hunter2-value")
	cs := connect(t, f.config(true))

	got, errText := call(t, cs, "get_secret", map[string]any{"path": "prod/db/password"})
	require.Empty(t, errText)
	require.True(t, got["value"] == "hunter2-value", "get_secret did not return the stored value")
	require.EqualValues(t, 1, got["version"])

	put, errText := call(t, cs, "put_secret", map[string]any{"path": "prod/api-key", "value": "new-value-1", "type": "api_key"})
	require.Empty(t, errText)
	require.Equal(t, true, put["created"])
	require.NotContains(t, keys(put), "value", "the answer carries a value")

	rot, errText := call(t, cs, "rotate_and_store", map[string]any{"path": "prod/db/password", "value": "rotated-value"})
	require.Empty(t, errText)
	require.EqualValues(t, 2, rot["version"])
	require.EqualValues(t, 1, rot["previous_version"])
	require.Equal(t, "password", rot["type"], "rotation keeps the type")
	raw, _ := json.Marshal(rot)
	require.False(t, strings.Contains(string(raw), "hunter2"), "rotation never returns the old value")

	desc, errText := call(t, cs, "describe_secret", map[string]any{"path": "prod/db/password"})
	require.Empty(t, errText)
	require.NotContains(t, keys(desc), "value", "the answer carries a value")
	require.Equal(t, map[string]any{"team": "core"}, desc["metadata"], "rotation keeps the metadata")

	list, errText := call(t, cs, "list_secrets", map[string]any{"prefix": "prod/"})
	require.Empty(t, errText)
	require.Len(t, list["secrets"], 2)

	env, errText := call(t, cs, "get_env_bundle", map[string]any{"path": "prod"})
	require.Empty(t, errText)
	require.True(t, reflect.DeepEqual(map[string]any{"PASSWORD": "rotated-value", "API_KEY": "new-value-1"}, env["env"]),
		"get_env_bundle did not map the values")

	vaults, errText := call(t, cs, "list_vaults", nil)
	require.Empty(t, errText)
	require.Len(t, vaults["vaults"], 1)

	pol, errText := call(t, cs, "grant_access", map[string]any{"vault_id": fakeVault, "principal_type": "agent",
		"principal_id": fakeAgentID, "permissions": []string{"read"}})
	require.Empty(t, errText)
	require.Equal(t, "**", pol["secret_path_pattern"])
}

func TestHandlesWhenValuesHidden(t *testing.T) {
	f := newFakeAPI(t)
	f.seed("prod/db/password", "password", "hidden-value")
	f.seed("prod/db/password", "password", "hidden-value-2")
	cs := connect(t, f.config(false))

	got, errText := call(t, cs, "get_secret", map[string]any{"path": "prod/db/password"})
	require.Empty(t, errText)
	require.Equal(t, "ocv://"+fakeVault+"/prod/db/password#v2", got["handle"])
	require.Equal(t, "password", got["type"])
	require.EqualValues(t, 2, got["version"])
	require.NotContains(t, keys(got), "value", "the answer carries a value")

	env, errText := call(t, cs, "get_env_bundle", map[string]any{"path": "prod/db"})
	require.Empty(t, errText)
	require.Equal(t, map[string]any{"PASSWORD": "ocv://" + fakeVault + "/prod/db/password#v2"}, env["env"])
	raw, _ := json.Marshal(env)
	require.False(t, strings.Contains(string(raw), "hidden-value"), "get_env_bundle revealed a value")
}

func TestToolErrors(t *testing.T) {
	f := newFakeAPI(t)
	f.seed("prod/a/x", "generic", "v1")
	f.seed("prod/b/x", "generic", "v2")
	f.seed("locked", "generic", "v3")
	f.forbidden[fakeVault+"/locked"] = true
	cases := map[string]struct {
		noVault bool
		tool    string
		args    map[string]any
		want    string
	}{
		"fail no vault":            {noVault: true, tool: "get_secret", args: map[string]any{"path": "a"}, want: ErrNoVault.Error()},
		"fail not found":           {tool: "describe_secret", args: map[string]any{"path": "nope"}, want: ErrSecretNotFound.Error()},
		"fail rotate missing":      {tool: "rotate_and_store", args: map[string]any{"path": "nope", "value": "x"}, want: "use put_secret"},
		"fail api problem":         {tool: "get_secret", args: map[string]any{"path": "locked"}, want: "OCV API: Forbidden: no policy allows read on locked (HTTP 403)"},
		"fail human only":          {tool: "create_vault", args: map[string]any{"name": "x"}, want: "Human only"},
		"fail env conflict":        {tool: "get_env_bundle", args: map[string]any{"path": "prod"}, want: ErrEnvConflict.Error()},
		"fail env empty":           {tool: "get_env_bundle", args: map[string]any{"path": "nothing"}, want: ErrNoSecrets.Error()},
		"fail share not available": {tool: "share_secret", args: map[string]any{"secret_id": "s", "expires_at": "2030-01-01T00:00:00Z", "max_access_count": 1}, want: "sharing is not available on this server yet"},
		// Path traversal must not reach the API as a different URL.
		"fail dot-dot path":  {tool: "get_secret", args: map[string]any{"path": "prod/../admin"}, want: ErrBadPath.Error()},
		"fail bad type enum": {tool: "put_secret", args: map[string]any{"path": "a", "value": "b", "type": "nope"}, want: "type"},
		"fail missing value": {tool: "put_secret", args: map[string]any{"path": "a"}, want: "value"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := f.config(true)
			if tc.noVault {
				cfg.DefaultVault = ""
			}
			cs := connect(t, cfg)
			out, errText := call(t, cs, tc.tool, tc.args)
			require.Nil(t, out)
			require.Contains(t, errText, tc.want)
			require.False(t, strings.Contains(errText, fakeAgentKey), "a tool error shows the agent key")
			require.False(t, strings.Contains(errText, "jwt-"), "a tool error shows a token")
			require.NotContains(t, errText, "goroutine")
		})
	}
}

func TestShareSecret(t *testing.T) {
	f := newFakeAPI(t)
	f.share = true
	cs := connect(t, f.config(true))
	out, errText := call(t, cs, "share_secret", map[string]any{"secret_id": "sec-1", "email": "a@example.com",
		"expires_at": "2030-01-01T00:00:00Z", "max_access_count": 1})
	require.Empty(t, errText)
	require.Equal(t, "share-1", out["id"])
}

// keys lists a map's keys (so a failing assertion never prints values).
func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
