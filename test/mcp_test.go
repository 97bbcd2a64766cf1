package test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/mcpserver"
	"github.com/opencustody/ocv/test/stack"
)

// mcpFixture is a stack with a vault, two secrets and an agent allowed to
// read and write every path of the vault.
type mcpFixture struct {
	s                *stack.Stack
	owner            stack.Account
	vault            string
	agentID, key     string
	env              []string // the environment `ocv mcp` runs with
	dbValue, apiKeyV string
}

func newMCPFixture(t *testing.T) *mcpFixture {
	t.Helper()
	s := stack.Start(t)
	f := &mcpFixture{s: s, owner: s.SignUp("mcp-owner@example.com"),
		dbValue: "pg-" + time.Now().Format("150405.000000"), apiKeyV: "sk-mcp-api-key-value"}
	f.vault = s.CreateVault(f.owner.Token, "mcp")
	for path, body := range map[string]map[string]string{
		"prod/db/password": {"type": "password", "value": f.dbValue},
		"prod/api-key":     {"type": "api_key", "value": f.apiKeyV},
	} {
		r := s.Do("PUT", "/v1/vaults/"+f.vault+"/secrets/"+path, f.owner.Token, body)
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	}
	f.agentID, f.key = registerAgent(t, s, f.owner.Token, map[string]any{"name": "mcp-bot"})
	createPolicy(t, s, f.owner.Token, f.vault, map[string]any{"secret_path_pattern": "**", "principal_type": "agent",
		"principal_id": f.agentID, "permissions": []string{"read", "write"}})
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OCV_") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			f.env = append(f.env, kv)
		}
	}
	f.env = append(f.env, "XDG_CONFIG_HOME="+t.TempDir(), "OCV_URL="+s.BaseURL,
		"OCV_CACERT="+filepath.Join(s.Dir, "tls", "ca.pem"), "OCV_AGENT_ID="+f.agentID,
		"OCV_AGENT_KEY="+f.key, "OCV_VAULT_ID="+f.vault)
	return f
}

// lockedBuffer collects a child's stderr.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// session runs `ocv mcp` over stdio with extra env and connects the Go SDK client.
func (f *mcpFixture) session(t *testing.T, stderr *lockedBuffer, extra ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(stack.Bin(t, "ocv"), "mcp")
	cmd.Env = append(append([]string{}, f.env...), extra...)
	cmd.Stderr = stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "ocv-e2e", Version: "1"}, nil).
		Connect(stack.Context(t), &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// toolCall calls a tool and returns its JSON answer, or the error text.
func toolCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (map[string]any, string) {
	t.Helper()
	res, err := cs.CallTool(stack.Context(t), &mcp.CallToolParams{Name: name, Arguments: args})
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

func TestMCP(t *testing.T) {
	f := newMCPFixture(t)
	var stderr lockedBuffer
	cs := f.session(t, &stderr)

	tools, err := cs.ListTools(stack.Context(t), nil)
	require.NoError(t, err)
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		require.Equal(t, "object", tl.InputSchema.(map[string]any)["type"], tl.Name)
	}
	require.ElementsMatch(t, mcpserver.ToolNames, names)

	got, errText := toolCall(t, cs, "get_secret", map[string]any{"path": "prod/db/password"})
	require.Empty(t, errText)
	requireTrue(t, got["value"] == f.dbValue, "get_secret did not return the stored value")

	put, errText := toolCall(t, cs, "put_secret", map[string]any{"path": "agent/written", "value": "written-by-agent", "type": "token"})
	require.Empty(t, errText)
	require.Equal(t, true, put["created"])
	got, errText = toolCall(t, cs, "get_secret", map[string]any{"path": "agent/written"})
	require.Empty(t, errText)
	requireTrue(t, got["value"] == "written-by-agent", "get_secret after put_secret returned another value")

	rot, errText := toolCall(t, cs, "rotate_and_store", map[string]any{"path": "agent/written", "value": "rotated-by-agent"})
	require.Empty(t, errText)
	require.EqualValues(t, 2, rot["version"])
	raw, _ := json.Marshal(rot)
	requireTrue(t, !strings.Contains(string(raw), "written-by-agent"), "rotation returned the old value")

	env, errText := toolCall(t, cs, "get_env_bundle", map[string]any{"path": "prod"})
	require.Empty(t, errText)
	requireTrue(t, env["env"].(map[string]any)["API_KEY"] == f.apiKeyV, "get_env_bundle misses API_KEY")

	list, errText := toolCall(t, cs, "list_vaults", nil)
	require.Empty(t, errText)
	require.Len(t, list["vaults"], 1)

	// Errors are tool results with the API's problem, not protocol errors.
	_, errText = toolCall(t, cs, "get_secret", map[string]any{"path": "prod/missing"})
	require.Contains(t, errText, "secret not found")
	_, errText = toolCall(t, cs, "create_vault", map[string]any{"name": "agents-cannot"})
	require.Contains(t, errText, "HTTP 403")
	// Until the share endpoint exists the tool says so; afterwards an agent may share with its creator.
	_, errText = toolCall(t, cs, "share_secret", map[string]any{"secret_id": put["id"], "expires_at": "2030-01-01T00:00:00Z", "max_access_count": 1})
	requireTrue(t, errText == "" || strings.Contains(errText, "sharing is not available on this server yet") ||
		strings.Contains(errText, "OCV API"), "share_secret answered %q", errText)
	_, errText = toolCall(t, cs, "get_secret", map[string]any{"path": "prod/db/password", "vault_id": "00000000-0000-7000-8000-000000000000"})
	require.Contains(t, errText, "OCV API")

	require.NoError(t, cs.Close())
	for _, secret := range []string{f.key, f.dbValue, f.apiKeyV} {
		requireTrue(t, !strings.Contains(stderr.String(), secret), "ocv mcp logged a secret")
	}
}

func TestMCPHandles(t *testing.T) {
	f := newMCPFixture(t)
	var stderr lockedBuffer
	cs := f.session(t, &stderr, "OCV_MCP_REVEAL_VALUES=false")

	got, errText := toolCall(t, cs, "get_secret", map[string]any{"path": "prod/db/password"})
	require.Empty(t, errText)
	require.Equal(t, "ocv://"+f.vault+"/prod/db/password#v1", got["handle"])
	require.Equal(t, "password", got["type"])
	require.NotContains(t, mcpKeys(got), "value", "the answer carries a value")

	env, errText := toolCall(t, cs, "get_env_bundle", map[string]any{"path": "prod"})
	require.Empty(t, errText)
	raw, _ := json.Marshal(env)
	requireTrue(t, !strings.Contains(string(raw), f.dbValue) && !strings.Contains(string(raw), f.apiKeyV),
		"get_env_bundle revealed a value with reveal off")
	require.Equal(t, "ocv://"+f.vault+"/prod/api-key#v1", env["env"].(map[string]any)["API_KEY"])
}

var mcpListenRE = regexp.MustCompile(`serving streamable HTTP at (http://\S+/mcp)`)

// startMCPHTTP runs `ocv mcp --http 127.0.0.1:0` and returns its endpoint.
func (f *mcpFixture) startMCPHTTP(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, stack.Bin(t, "ocv"), "mcp", "--http", "127.0.0.1:0")
	cmd.Env = f.env
	pipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	lines := bufio.NewScanner(pipe)
	for lines.Scan() {
		if m := mcpListenRE.FindStringSubmatch(lines.Text()); m != nil {
			go func() { // keep draining stderr
				for lines.Scan() {
				}
			}()
			return m[1]
		}
	}
	t.Fatal("ocv mcp --http exited without announcing its address")
	return ""
}

func TestMCPOverHTTP(t *testing.T) {
	f := newMCPFixture(t)
	endpoint := f.startMCPHTTP(t)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "ocv-e2e", Version: "1"}, nil).
		Connect(stack.Context(t), &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	require.NoError(t, err)
	defer cs.Close()
	got, errText := toolCall(t, cs, "get_secret", map[string]any{"path": "prod/api-key"})
	require.Empty(t, errText)
	requireTrue(t, got["value"] == f.apiKeyV, "get_secret over HTTP did not return the value")
}

// TestMCPConformance drives `ocv mcp` with the official TypeScript SDK
// client (test/conformance/mcp-client.mjs) over stdio and HTTP. It fails
// when node or the npm dependencies are missing: `make test` runs npm ci.
func TestMCPConformance(t *testing.T) {
	node, err := exec.LookPath("node")
	require.NoError(t, err, "node is required (make test installs npm and runs npm ci in test/conformance)")
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "conformance")
	_, err = os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json"))
	require.NoError(t, err, "test/conformance/node_modules is missing: run npm ci --prefix test/conformance")

	f := newMCPFixture(t)
	endpoint := f.startMCPHTTP(t)
	cmd := exec.CommandContext(stack.Context(t), node, filepath.Join(dir, "mcp-client.mjs"))
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, f.env...), "OCV_BIN="+stack.Bin(t, "ocv"), "OCV_MCP_HTTP_URL="+endpoint)
	out, err := cmd.CombinedOutput()
	text := string(out)
	for _, secret := range []string{f.key, f.dbValue, f.apiKeyV} {
		text = strings.ReplaceAll(text, secret, "[redacted]")
	}
	require.NoError(t, err, "conformance client failed:\n%s", text)
	require.Contains(t, text, `"ok":true`)
	require.Contains(t, text, `"transport":"stdio"`)
	require.Contains(t, text, `"transport":"http"`)
}

// mcpKeys lists a map's keys (so a failing assertion never prints values).
func mcpKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestMCPSigning: an agent signs through `ocv mcp` (the Intents API tools)
// and a guardrail refusal reaches the model as a tool error naming it.
func TestMCPSigning(t *testing.T) {
	f := newMCPFixture(t)
	r := f.s.Do("PATCH", "/v1/agents/"+f.agentID, f.owner.Token, map[string]any{"intents_api_enabled": true,
		"message_signing_enabled": true, "tx_max_value_eth": "0.1"})
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	r = f.s.Do("POST", "/v1/agents/"+f.agentID+"/signing-keys", f.owner.Token, map[string]any{"chain": "ethereum"})
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	address := r.JSON(t)["address"].(string)

	var stderr lockedBuffer
	cs := f.session(t, &stderr)
	keys, errText := toolCall(t, cs, "get_signing_keys", map[string]any{})
	require.Empty(t, errText)
	require.Contains(t, fmt.Sprint(keys), address)

	sig, errText := toolCall(t, cs, "sign_message", map[string]any{"message": "hello from a model"})
	require.Empty(t, errText)
	raw, err := hexutil.Decode(sig["signature"].(string))
	require.NoError(t, err)
	require.Equal(t, common.HexToAddress(address), recoverPersonal(t, []byte("hello from a model"), raw))

	_, errText = toolCall(t, cs, "sign_transaction", map[string]any{"chain_id": "base", "to": otherTo,
		"value": "0xde0b6b3a7640000", "nonce": 1, "gas": 21000, "max_fee_per_gas": "0x3b9aca00", "max_priority_fee_per_gas": "0x1"})
	require.Contains(t, errText, "guardrail_tx_max_value_eth")
}
