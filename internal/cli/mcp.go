package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/opencustody/ocv/internal/mcpserver"
)

const mcpSynopsis = `ocv mcp [--agent-id ID] [--agent-key-file F] [--vault VAULT_ID] [--reveal-values=false] [--http 127.0.0.1:PORT]

Serves the OCV tools to an AI agent over the Model Context Protocol: JSON-RPC 2.0
on stdin/stdout (default), or streamable HTTP at http://ADDR/mcp with --http.
The agent key comes from $OCV_AGENT_KEY or --agent-key-file, never from a flag
value; it is exchanged for a short-lived token, renewed before expiry.
With --reveal-values=false ($OCV_MCP_REVEAL_VALUES=false) get_secret and
get_env_bundle return handles (ocv://VAULT/PATH#vN) instead of values.
See docs/mcp.md.`

// mcpOptions are the flags of ocv mcp.
type mcpOptions struct {
	agentID, keyFile, vault, httpAddr string
	reveal, allowRemote               bool
}

func mcpServe(ctx context.Context, e *cmdEnv, args []string) error {
	reveal := true
	if s := e.getenv("OCV_MCP_REVEAL_VALUES"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("%w: OCV_MCP_REVEAL_VALUES must be true or false", ErrUsage)
		}
		reveal = b
	}
	o := mcpOptions{agentID: e.getenv("OCV_AGENT_ID"), vault: e.getenv("OCV_VAULT_ID"), reveal: reveal}
	fs := e.flags("mcp", mcpSynopsis)
	fs.StringVar(&o.agentID, "agent-id", o.agentID, "agent id ($OCV_AGENT_ID)")
	fs.StringVar(&o.keyFile, "agent-key-file", "", "file holding the agent key (else $OCV_AGENT_KEY)")
	fs.StringVar(&o.vault, "vault", o.vault, "default vault id for tools called without vault_id ($OCV_VAULT_ID)")
	fs.BoolVar(&o.reveal, "reveal-values", o.reveal, "return secret values from get_secret/get_env_bundle; false returns handles ($OCV_MCP_REVEAL_VALUES, setting mcp_reveal_values)")
	fs.StringVar(&o.httpAddr, "http", "", "serve streamable HTTP on this address (loopback, e.g. 127.0.0.1:8765) instead of stdio")
	fs.BoolVar(&o.allowRemote, "http-allow-remote", false, "allow --http on a non-loopback address (the endpoint has no authentication of its own)")
	if _, err := positional(fs, args); err != nil {
		return err
	}
	cfg, err := mcpConfig(e, o)
	if err != nil {
		return err
	}
	srv, err := mcpserver.New(cfg)
	if err != nil {
		return fmt.Errorf("starting the tool server: %w", err)
	}
	if o.httpAddr == "" {
		return mcpserver.ServeStdio(ctx, srv, e.stdin, e.stdout)
	}
	return serveMCPHTTP(ctx, e, o, srv)
}

// mcpConfig builds the server configuration from the globals and flags.
func mcpConfig(e *cmdEnv, o mcpOptions) (mcpserver.Config, error) {
	c, err := newClient(e.g, credStore{})
	if err != nil {
		return mcpserver.Config{}, err
	}
	key := e.getenv("OCV_AGENT_KEY")
	if o.keyFile != "" {
		b, err := os.ReadFile(o.keyFile)
		if err != nil {
			return mcpserver.Config{}, fmt.Errorf("reading the agent key file: %w", err)
		}
		key = strings.TrimSpace(string(b))
	}
	cfg := mcpserver.Config{BaseURL: c.base, HTTPClient: c.hc, AgentID: o.agentID, AgentKey: key,
		DefaultVault: o.vault, RevealValues: o.reveal, Version: "dev"}
	if o.agentID == "" || key == "" {
		// Hidden override for tests and debugging: a token from --token/$OCV_TOKEN.
		cfg.Token = e.g.token
	}
	if cfg.Token == "" && (o.agentID == "" || key == "") {
		return mcpserver.Config{}, fmt.Errorf("%w: ocv mcp needs --agent-id (or $OCV_AGENT_ID) and the agent key in $OCV_AGENT_KEY or --agent-key-file", ErrUsage)
	}
	return cfg, nil
}

// serveMCPHTTP serves the streamable HTTP transport at /mcp until ctx ends.
func serveMCPHTTP(ctx context.Context, e *cmdEnv, o mcpOptions, srv *mcp.Server) error {
	if err := checkLoopback(o.httpAddr, o.allowRemote); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.httpAddr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", o.httpAddr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpserver.HTTPHandler(srv))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(e.stderr, "ocv mcp: serving streamable HTTP at http://%s/mcp\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serving MCP over HTTP: %w", err)
	case <-ctx.Done():
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("stopping the MCP HTTP server: %w", err)
	}
	return nil
}

// checkLoopback refuses a listen address that is not loopback unless allowed.
func checkLoopback(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%w: --http takes HOST:PORT, e.g. 127.0.0.1:8765", ErrUsage)
	}
	ip := net.ParseIP(host)
	if allowRemote || host == "localhost" || (ip != nil && ip.IsLoopback()) {
		return nil
	}
	return fmt.Errorf("%w: --http %s is not a loopback address; the MCP endpoint has no authentication of its own (add --http-allow-remote to insist)", ErrUsage, addr)
}
