package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/opencustody/ocv/api"
)

// maxSecretLine bounds a password or API key read from stdin.
const maxSecretLine = 4096

// login signs in and caches the tokens for the URL.
func login(ctx context.Context, e *cmdEnv, args []string) error {
	fs := e.flags("ocv login", "ocv login [--email E] [--password-stdin] | ocv login --api-key | ocv login --agent ID")
	email := fs.String("email", "", "account email (prompted when stdin is a terminal)")
	pwStdin := fs.Bool("password-stdin", false, "read the password from stdin (the first line) instead of the terminal")
	apiKey := fs.Bool("api-key", false, "sign in with a personal API key from $OCV_API_KEY or stdin")
	agent := fs.String("agent", "", "sign in as this agent id, with its key from $OCV_AGENT_KEY or stdin")
	if _, err := positional(fs, args); err != nil {
		return err
	}
	if (*apiKey && *agent != "") || ((*apiKey || *agent != "") && (*email != "" || *pwStdin)) {
		return fmt.Errorf("%w: --email, --api-key and --agent exclude each other", ErrUsage)
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	in := bufio.NewReaderSize(e.stdin, maxSecretLine)
	var t api.TokenResponse
	method := "password"
	var who string
	switch {
	case *apiKey:
		method, who = "api_key", "an API key"
		key, err := keyFromEnvOrStdin(e, in, "OCV_API_KEY", "API key: ")
		if err != nil {
			return err
		}
		t, err = c.exchange(ctx, "/v1/auth/api-key-token", api.APIKeyTokenRequest{APIKey: &key})
		if err != nil {
			return err
		}
	case *agent != "":
		method, who = "agent", "agent "+*agent
		key, err := keyFromEnvOrStdin(e, in, "OCV_AGENT_KEY", "Agent key: ")
		if err != nil {
			return err
		}
		t, err = c.exchange(ctx, "/v1/auth/agent-token", api.AgentTokenRequest{AgentID: agent, APIKey: &key})
		if err != nil {
			return err
		}
	default:
		if t, err = passwordLogin(ctx, e, c, in, email, *pwStdin); err != nil {
			return err
		}
		who = *email
	}
	entry := c.entryFrom(t, *email, method)
	if err := c.creds.put(c.base, entry); err != nil {
		return err
	}
	if e.g.json {
		return json.NewEncoder(e.stdout).Encode(map[string]any{"url": c.base, "method": method, "email": *email,
			"expires_at": entry.ExpiresAt, "refreshable": entry.RefreshToken != ""})
	}
	fmt.Fprintf(e.stdout, "Logged in to %s as %s (token cached in %s)\n", c.base, clean(who), c.creds.path())
	return nil
}

// passwordLogin asks for what is missing and signs in with email and password.
func passwordLogin(ctx context.Context, e *cmdEnv, c *client, in *bufio.Reader, email *string, pwStdin bool) (api.TokenResponse, error) {
	if *email == "" {
		if !isTerminal(e.stdin) {
			return api.TokenResponse{}, fmt.Errorf("%w: --email is required when stdin is not a terminal", ErrUsage)
		}
		fmt.Fprint(e.stderr, "Email: ")
		line, err := readLine(in)
		if err != nil {
			return api.TokenResponse{}, err
		}
		*email = strings.TrimSpace(line)
	}
	pw, err := readSecret(e, in, "Password: ", pwStdin)
	if err != nil {
		return api.TokenResponse{}, err
	}
	if pw == "" {
		return api.TokenResponse{}, fmt.Errorf("%w: empty password", ErrUsage)
	}
	return c.exchange(ctx, "/v1/auth/token", api.TokenRequest{Email: email, Password: &pw})
}

// keyFromEnvOrStdin reads a key from the variable, else from stdin.
func keyFromEnvOrStdin(e *cmdEnv, in *bufio.Reader, envVar, prompt string) (string, error) {
	if key := e.getenv(envVar); key != "" {
		return key, nil
	}
	key, err := readSecret(e, in, prompt, false)
	if err != nil {
		return "", err
	}
	if key = strings.TrimSpace(key); key == "" {
		return "", fmt.Errorf("%w: no key given ($%s or stdin)", ErrUsage, envVar)
	}
	return key, nil
}

// readSecret reads a password or key: without echo from a terminal, else
// the first line of stdin.
func readSecret(e *cmdEnv, in *bufio.Reader, prompt string, fromStdin bool) (string, error) {
	if !fromStdin && isTerminal(e.stdin) {
		fmt.Fprint(e.stderr, prompt)
		b, err := term.ReadPassword(int(e.stdin.Fd()))
		fmt.Fprintln(e.stderr)
		if err != nil {
			return "", fmt.Errorf("reading from the terminal: %w", err)
		}
		return string(b), nil
	}
	return readLine(in)
}

// readLine reads one line without its line ending; EOF ends the line too.
func readLine(in *bufio.Reader) (string, error) {
	line, err := in.ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("reading stdin: %w", err)
	}
	if len(line) > maxSecretLine {
		return "", fmt.Errorf("%w: input line longer than %d bytes", ErrUsage, maxSecretLine)
	}
	return strings.TrimRight(line, "\r\n"), nil
}

func isTerminal(f *os.File) bool { return f != nil && term.IsTerminal(int(f.Fd())) }

// logout revokes the session (and its refresh token family) and forgets it.
func logout(ctx context.Context, e *cmdEnv, args []string) error {
	fs := e.flags("ocv logout", "ocv logout")
	if _, err := positional(fs, args); err != nil {
		return err
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	ent, ok, err := c.creds.get(c.base)
	if err != nil {
		return err
	}
	if !ok {
		fmt.Fprintf(e.stdout, "Not logged in to %s\n", c.base)
		return nil
	}
	// Revoke with the cached session only: --token/$OCV_TOKEN are not ours to end.
	c.token = ""
	var revokeErr error
	if ent.Method != "api_key" || c.now().Before(ent.ExpiresAt) {
		var body any
		if ent.RefreshToken != "" {
			body = api.RevokeRequest{RefreshToken: &ent.RefreshToken}
		}
		_, revokeErr = c.call(ctx, http.MethodDelete, "/v1/auth/token", nil, body)
	}
	// A session the server no longer accepts is already over.
	var p *ProblemError
	if errors.Is(revokeErr, ErrSessionExpired) || (errors.As(revokeErr, &p) && p.Status == http.StatusUnauthorized) {
		revokeErr = nil
	}
	if err := c.creds.remove(c.base); err != nil {
		return err
	}
	if revokeErr != nil {
		return fmt.Errorf("revoking the session (the cached tokens were deleted): %w", revokeErr)
	}
	fmt.Fprintf(e.stdout, "Logged out of %s\n", c.base)
	return nil
}

// printToken prints a valid access token for scripts.
func printToken(ctx context.Context, e *cmdEnv, args []string) error {
	fs := e.flags("ocv token", "ocv token")
	if _, err := positional(fs, args); err != nil {
		return err
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	tok, err := c.accessToken(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, tok)
	return nil
}
