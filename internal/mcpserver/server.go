package mcpserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Config configures the tool server.
type Config struct {
	// BaseURL is the OCV API base URL, https://host[:port] without a path.
	BaseURL string
	// HTTPClient calls the API (its TLS settings trust the API's CA). It
	// should not follow redirects. Nil uses a client with a 2 minute timeout
	// that never follows redirects.
	HTTPClient *http.Client
	// AgentID and AgentKey are the agent's credentials, exchanged for a JWT
	// at /v1/auth/agent-token.
	AgentID, AgentKey string
	// Token, when set, is used as the bearer token as is, with no exchange
	// and no refresh (tests and operators debugging with a human token).
	Token string
	// DefaultVault is the vault id used when a call gives no vault_id.
	DefaultVault string
	// RevealValues makes get_secret and get_env_bundle return values; when
	// false they return handles (setting mcp_reveal_values).
	RevealValues bool
	// Version is reported to clients in the initialize answer.
	Version string
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// New builds the MCP server with the OCV tools (ToolNames). It fails with
// ErrNoCredentials when the configuration has no way to authenticate and
// with ErrBadConfig when the base URL is not an https URL.
func New(cfg Config) (*mcp.Server, error) {
	t, err := newTools(cfg)
	if err != nil {
		return nil, err
	}
	version := cfg.Version
	if version == "" {
		version = "dev"
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "ocv", Title: "Open Custody Vault", Version: version},
		&mcp.ServerOptions{Instructions: instructions(cfg.RevealValues)})
	t.register(srv)
	return srv, nil
}

// newTools checks cfg and builds the tool handlers.
func newTools(cfg Config) (*tools, error) {
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || u.Scheme != "https" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return nil, fmt.Errorf("%w: the API URL must be an https:// base URL", ErrBadConfig)
	}
	if cfg.Token == "" && (cfg.AgentID == "" || cfg.AgentKey == "") {
		return nil, ErrNoCredentials
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 2 * time.Minute,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	return &tools{
		api: &apiClient{base: strings.TrimSuffix(cfg.BaseURL, "/"), hc: hc, agentID: cfg.AgentID,
			agentKey: cfg.AgentKey, static: cfg.Token, now: now},
		vault:  cfg.DefaultVault,
		reveal: cfg.RevealValues,
		now:    now,
	}, nil
}

func instructions(reveal bool) string {
	s := "Tools for the Open Custody Vault secrets manager, acting as one agent. " +
		"Secret paths are slash-separated (prod/db/password). Tools that take a path accept an optional vault_id; " +
		"without it the server's default vault is used. " +
		"The signing tools (get_signing_keys, get_balance, sign_message, sign_typed_data, simulate_transaction, " +
		"sign_transaction, send_transaction, list_transactions) use this agent's own keys through the Intents API; " +
		"the agent's guardrails decide what may be signed, and a refusal names the guardrail " +
		"(for example guardrail_tx_max_value_eth). send_transaction broadcasts and cannot be undone: " +
		"simulate first and pass an idempotency_key."
	if !reveal {
		s += " This server does not reveal secret values: get_secret and get_env_bundle return handles " +
			"(ocv://<vault_id>/<path>#v<version>) that a trusted process resolves."
	}
	return s
}

// ServeStdio serves one client over newline-delimited JSON-RPC on in and
// out until the client disconnects or ctx ends.
func ServeStdio(ctx context.Context, srv *mcp.Server, in io.Reader, out io.Writer) error {
	err := srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("serving MCP over stdio: %w", err)
	}
	return nil
}

// HTTPHandler serves the MCP streamable HTTP transport for srv. The SDK
// refuses requests that reach a loopback listener with a foreign Host
// header (DNS rebinding).
func HTTPHandler(srv *mcp.Server) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{SessionTimeout: 30 * time.Minute})
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// tools holds what the tool handlers share.
type tools struct {
	api     *apiClient
	vault   string
	reveal  bool
	now     func() time.Time
	shareOK atomic.Bool // the API was seen serving the share endpoint

	selfMu sync.Mutex
	self   string // the agent's own id, from GET /v1/agents/me
}

// vaultID picks the call's vault id, else the default.
func (t *tools) vaultID(given string) (string, error) {
	v := strings.TrimSpace(given)
	if v == "" {
		v = t.vault
	}
	if v == "" {
		return "", ErrNoVault
	}
	if strings.ContainsAny(v, "/?#") {
		return "", fmt.Errorf("vault_id %q is not a vault id", v)
	}
	return v, nil
}
