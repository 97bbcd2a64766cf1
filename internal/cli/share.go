package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/opencustody/ocv/api"
)

func printShare(e *cmdEnv, body []byte) error {
	if e.g.json {
		return rawJSON(e.stdout, body)
	}
	var s api.Share
	if err := json.Unmarshal(body, &s); err != nil {
		return fmt.Errorf("decoding share: %w", err)
	}
	recipient := s.RecipientType
	if s.Email != nil {
		recipient += " " + *s.Email
	} else if s.RecipientID != nil {
		recipient += " " + *s.RecipientID
	}
	return fields(e.stdout, [][2]string{{"id", s.ID}, {"url", s.URL}, {"secret", s.SecretID + " (" + s.Path + ")"},
		{"recipient", recipient}, {"status", s.Status}, {"expires_at", s.ExpiresAt},
		{"accesses_left", fmt.Sprintf("%d of %d", s.Remaining, s.MaxAccessCount)},
		{"passphrase", fmt.Sprint(s.HasPassphrase)}, {"created_at", s.CreatedAt}})
}

// readPassphrase reads one line from stdin (never a flag: it would show in
// the process list and the shell history).
func readPassphrase(e *cmdEnv) (string, error) {
	b, err := io.ReadAll(io.LimitReader(e.stdin, 4<<10))
	if err != nil {
		return "", fmt.Errorf("reading the passphrase from stdin: %w", err)
	}
	s := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if s == "" {
		return "", fmt.Errorf("%w: the passphrase on stdin is empty", ErrUsage)
	}
	return s, nil
}

// shareSecretID returns the secret id: the one argument, or the secret at
// --path in --vault.
func shareSecretID(ctx context.Context, c *client, pos []string, vault, path string) (string, error) {
	switch {
	case len(pos) == 1 && vault == "" && path == "":
		if !uuidRE.MatchString(pos[0]) {
			return "", fmt.Errorf("%w: expected a secret id (or --vault V --path P)", ErrUsage)
		}
		return pos[0], nil
	case len(pos) == 0 && vault != "" && path != "":
	default:
		return "", fmt.Errorf("%w: give a SECRET_ID or --vault V --path P", ErrUsage)
	}
	vaultID, err := resolveVault(ctx, c, vault)
	if err != nil {
		return "", err
	}
	items, err := listSecrets(ctx, c, vaultID, path)
	if err != nil {
		return "", err
	}
	for _, s := range items {
		if s.Path == path {
			return s.ID, nil
		}
	}
	return "", fmt.Errorf("%w: no secret at %q in that vault", ErrSecretNotFound, path)
}

func shareCreate(ctx context.Context, e *cmdEnv, args []string) error {
	fs := e.flags("ocv share create", "ocv share create (SECRET_ID | --vault V --path P) [--to TYPE] [--email E] [--recipient ID] "+
		"[--expires-in D | --expires-at T] [--max-access N] [--passphrase-stdin] [--ip CIDR ...]")
	vault := fs.String("vault", "", "vault id or name (with --path)")
	path := fs.String("path", "", "secret path (with --vault)")
	to := fs.String("to", "anyone_with_link", "recipient type: creator, external_email, user, agent, anyone_with_link")
	email := fs.String("email", "", "recipient email (--to external_email)")
	recipient := fs.String("recipient", "", "recipient user or agent id (--to user|agent)")
	expiresIn := fs.Duration("expires-in", 24*time.Hour, "lifetime of the share (at most 30 days)")
	expiresAt := fs.String("expires-at", "", "RFC 3339 expiry (instead of --expires-in)")
	maxAccess := fs.Int("max-access", 0, "how many times the share may be opened (0: the server's default)")
	passStdin := fs.Bool("passphrase-stdin", false, "protect the share with a passphrase read from stdin")
	var ips listFlag
	fs.Var(&ips, "ip", "client CIDR allowed to open the share (repeatable)")
	pos, _, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return fmt.Errorf("%w: unexpected argument %q", ErrUsage, pos[1])
	}
	// The default expiry is sent to the second.
	expires := time.Now().Add(*expiresIn).UTC().Truncate(time.Second)
	in := api.ShareCreate{RecipientType: to, ExpiresAt: &expires}
	if *expiresAt != "" {
		if expires, err = time.Parse(time.RFC3339, *expiresAt); err != nil {
			return fmt.Errorf("%w: expires_at must be an RFC 3339 time like 2030-01-02T15:04:05Z", ErrUsage)
		}
	}
	if *email != "" {
		in.Email = email
	}
	if *recipient != "" {
		in.RecipientID = recipient
	}
	if *maxAccess != 0 {
		in.MaxAccessCount = maxAccess
	}
	if len(ips) > 0 {
		in.IPAllowlist = ips
	}
	if *passStdin {
		pass, err := readPassphrase(e)
		if err != nil {
			return err
		}
		in.Passphrase = &pass
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	id, err := shareSecretID(ctx, c, pos, *vault, *path)
	if err != nil {
		return err
	}
	body, err := c.call(ctx, http.MethodPost, "/v1/secrets/"+url.PathEscape(id)+"/share", nil, in)
	if err != nil {
		return err
	}
	return printShare(e, body)
}

func shareList(ctx context.Context, e *cmdEnv, args []string) error {
	fs := e.flags("ocv share list", "ocv share list [--inbound]")
	inbound := fs.Bool("inbound", false, "list the shares made to you instead of by you")
	if _, err := positional(fs, args); err != nil {
		return err
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	path := "/v1/shares/outbound"
	if *inbound {
		path = "/v1/shares/inbound"
	}
	items, err := listAll(ctx, c, path, nil)
	if err != nil {
		return err
	}
	if e.g.json {
		return listJSON(e, items)
	}
	rows := make([][]string, 0, len(items))
	for _, raw := range items {
		var s api.Share
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("decoding share: %w", err)
		}
		rows = append(rows, []string{s.ID, s.Path, s.RecipientType, s.Status, fmt.Sprintf("%d/%d", s.Remaining, s.MaxAccessCount), s.ExpiresAt})
	}
	return table(e.stdout, []string{"ID", "PATH", "RECIPIENT", "STATUS", "LEFT", "EXPIRES"}, rows)
}

// shareID takes a share id or its link, absolute or as the API gives it
// ("/v1/share/ID"): the last path segment.
func shareID(arg string) (string, error) {
	if u, err := url.Parse(arg); err == nil && strings.Contains(u.Path, "/") {
		segs := strings.Split(strings.TrimSuffix(u.Path, "/"), "/")
		arg = segs[len(segs)-1]
	}
	if !uuidRE.MatchString(arg) {
		return "", fmt.Errorf("%w: expected a share id or link", ErrUsage)
	}
	return arg, nil
}

func shareOpen(ctx context.Context, e *cmdEnv, args []string) error {
	fs := e.flags("ocv share open", "ocv share open ID|LINK [--passphrase-stdin]")
	passStdin := fs.Bool("passphrase-stdin", false, "send the share's passphrase, read from stdin")
	pos, err := positional(fs, args, "ID")
	if err != nil {
		return err
	}
	id, err := shareID(pos[0])
	if err != nil {
		return err
	}
	hdr := http.Header{}
	if *passStdin {
		p, err := readPassphrase(e)
		if err != nil {
			return err
		}
		hdr.Set("X-Share-Passphrase", p)
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	// A link share opens without an OCV account; a share addressed to a
	// user or an agent opens only with its recipient's token, so the
	// signed-in token goes along when there is one.
	tok, err := c.accessToken(ctx)
	if err != nil {
		tok = ""
	}
	status, body, err := c.sendWith(ctx, http.MethodGet, "/v1/share/"+url.PathEscape(id), nil, nil, tok, hdr)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return problemFrom(status, body)
	}
	if e.g.json {
		return rawJSON(e.stdout, body)
	}
	var out struct {
		Value    string `json:"value"`
		Encoding string `json:"encoding"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return fmt.Errorf("decoding share: %w", err)
	}
	// A binary value goes out as its raw bytes.
	enc, _ := json.Marshal(out.Encoding)
	if out.Value, err = decodeValue(map[string]json.RawMessage{"encoding": enc}, out.Value); err != nil {
		return err
	}
	// The value goes out exactly; a newline is added only for a terminal.
	if _, err := io.WriteString(e.stdout, out.Value); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	if f, ok := e.stdout.(*os.File); ok && isTerminal(f) {
		fmt.Fprintln(e.stdout)
	}
	return nil
}

func shareRevoke(ctx context.Context, e *cmdEnv, args []string) error {
	fs := e.flags("ocv share revoke", "ocv share revoke ID")
	pos, err := positional(fs, args, "ID")
	if err != nil {
		return err
	}
	id, err := shareID(pos[0])
	if err != nil {
		return err
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	if _, err := c.call(ctx, http.MethodDelete, "/v1/share/"+url.PathEscape(id), nil, nil); err != nil {
		return err
	}
	if e.g.json {
		return rawJSON(e.stdout, []byte(`{"revoked":true}`))
	}
	fmt.Fprintf(e.stdout, "Revoked share %s\n", id)
	return nil
}
