package cli

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/opencustody/ocv/api"
)

// maxValueBytes is the API's value limit (api/openapi.yaml).
const maxValueBytes = 512 << 10

// secretURL is the URL path of a secret, each segment percent-encoded.
func secretURL(vaultID, path string) (string, error) {
	esc, err := escapePath(path)
	if err != nil {
		return "", err
	}
	return "/v1/vaults/" + url.PathEscape(vaultID) + "/secrets/" + esc, nil
}

// secretTarget parses --vault and PATH and resolves them to a URL path.
func secretTarget(ctx context.Context, e *cmdEnv, vault, path string) (*client, string, error) {
	if vault == "" {
		return nil, "", fmt.Errorf("%w: --vault is required", ErrUsage)
	}
	if _, err := escapePath(path); err != nil {
		return nil, "", err
	}
	c, err := e.client()
	if err != nil {
		return nil, "", err
	}
	id, err := resolveVault(ctx, c, vault)
	if err != nil {
		return nil, "", err
	}
	u, err := secretURL(id, path)
	return c, u, err
}

func secretPut(ctx context.Context, e *cmdEnv, args []string) error {
	fs := e.flags("ocv secret put", "ocv secret put --vault V PATH (--value-stdin | --value-file F | --value V) [--type T] [--metadata k=v ...] [--expires-at RFC3339]")
	vault := fs.String("vault", "", "vault id or name")
	typ := fs.String("type", "generic", "api_key, password, private_key, ssh_key, payment_card, gift_card, certificate, token or generic")
	fromStdin := fs.Bool("value-stdin", false, "read the value from stdin (one trailing newline is dropped)")
	fromFile := fs.String("value-file", "", "read the value from this file, byte for byte")
	literal := fs.String("value", "", "the value itself (discouraged: it stays in your shell history and process list)")
	meta := kvFlag{}
	fs.Var(meta, "metadata", "key=value metadata (repeatable)")
	expires := fs.String("expires-at", "", "RFC 3339 time after which the secret can no longer be read")
	pos, err := positional(fs, args, "PATH")
	if err != nil {
		return err
	}
	valueSet := false
	fs.Visit(func(f *flag.Flag) { valueSet = valueSet || f.Name == "value" })
	value, encoding, err := readValue(e, *fromStdin, *fromFile, *literal, valueSet)
	if err != nil {
		return err
	}
	in := api.SecretWrite{Type: typ, Value: &value, Encoding: encoding, Metadata: map[string]string(meta)}
	if *expires != "" {
		t, err := time.Parse(time.RFC3339, *expires)
		if err != nil {
			return fmt.Errorf("%w: --expires-at must be an RFC 3339 time like 2030-01-02T15:04:05Z", ErrUsage)
		}
		in.ExpiresAt = &t
	}
	c, u, err := secretTarget(ctx, e, *vault, pos[0])
	if err != nil {
		return err
	}
	body, err := c.call(ctx, http.MethodPut, u, nil, in)
	if err != nil {
		return err
	}
	if e.g.json {
		return rawJSON(e.stdout, body)
	}
	var s api.Secret
	if err := json.Unmarshal(body, &s); err != nil {
		return fmt.Errorf("decoding secret: %w", err)
	}
	fmt.Fprintf(e.stdout, "Stored %s version %d\n", clean(s.Path), s.Version)
	return nil
}

// readValue takes the value from exactly one source. Text (valid UTF-8)
// goes as it is; anything else goes as standard base64 with encoding
// "base64", so no byte is altered on the way (JSON would replace invalid
// UTF-8). One trailing newline is dropped from text read from stdin only.
func readValue(e *cmdEnv, fromStdin bool, file, literal string, literalSet bool) (value string, encoding *string, err error) {
	n := 0
	for _, set := range []bool{fromStdin, file != "", literalSet} {
		if set {
			n++
		}
	}
	if n != 1 {
		return "", nil, fmt.Errorf("%w: give exactly one of --value-stdin, --value-file, --value", ErrUsage)
	}
	var b []byte
	switch {
	case fromStdin:
		b, err = io.ReadAll(io.LimitReader(e.stdin, maxValueBytes+3))
		if err != nil {
			return "", nil, fmt.Errorf("reading the value from stdin: %w", err)
		}
		if utf8.Valid(b) {
			s := strings.TrimSuffix(string(b), "\n")
			b = []byte(strings.TrimSuffix(s, "\r"))
		}
	case file != "":
		if b, err = os.ReadFile(file); err != nil {
			return "", nil, fmt.Errorf("reading the value file: %w", err)
		}
	default:
		fmt.Fprintln(e.stderr, "ocv: warning: --value leaks the secret into shell history and the process list; prefer --value-stdin or --value-file")
		b = []byte(literal)
	}
	if len(b) > maxValueBytes {
		return "", nil, fmt.Errorf("%w: the value is larger than %d bytes", ErrUsage, maxValueBytes)
	}
	if !utf8.Valid(b) {
		enc := "base64"
		return base64.StdEncoding.EncodeToString(b), &enc, nil
	}
	return string(b), nil, nil
}

func secretGet(ctx context.Context, e *cmdEnv, args []string) error {
	fs := e.flags("ocv secret get", "ocv secret get --vault V PATH [--field NAME] [--reveal]")
	vault := fs.String("vault", "", "vault id or name")
	field := fs.String("field", "", "print only this field (e.g. value, version, type) with no decoration")
	reveal := fs.Bool("reveal", false, "show the value in the table")
	pos, err := positional(fs, args, "PATH")
	if err != nil {
		return err
	}
	c, u, err := secretTarget(ctx, e, *vault, pos[0])
	if err != nil {
		return err
	}
	body, err := c.call(ctx, http.MethodGet, u, nil, nil)
	if err != nil {
		return err
	}
	if e.g.json && *field == "" {
		return rawJSON(e.stdout, body)
	}
	if *field != "" {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(body, &m); err != nil {
			return fmt.Errorf("decoding secret: %w", err)
		}
		raw, ok := m[*field]
		if !ok {
			return fmt.Errorf("%w: the secret has no field %q", ErrUsage, *field)
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			s = string(raw)
		}
		if *field == "value" {
			// A binary value goes out as its raw bytes.
			if s, err = decodeValue(m, s); err != nil {
				return err
			}
		}
		// The value goes out exactly; a newline is added only for a terminal.
		if _, err := io.WriteString(e.stdout, s); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
		if f, ok := e.stdout.(*os.File); ok && isTerminal(f) {
			fmt.Fprintln(e.stdout)
		}
		return nil
	}
	var s api.Secret
	if err := json.Unmarshal(body, &s); err != nil {
		return fmt.Errorf("decoding secret: %w", err)
	}
	var meta map[string]string
	if len(s.Metadata) > 0 {
		if err := json.Unmarshal(s.Metadata, &meta); err != nil {
			return fmt.Errorf("decoding secret: %w", err)
		}
	}
	kv := [][2]string{{"path", s.Path}, {"type", s.Type}, {"version", fmt.Sprint(s.Version)},
		{"expires_at", orDash(s.ExpiresAt)}, {"updated_at", s.UpdatedAt}, {"id", s.ID}}
	keys := make([]string, 0, len(meta))
	for k := range meta {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		kv = append(kv, [2]string{"metadata." + k, meta[k]})
	}
	switch {
	case *reveal && s.Value != nil && s.Encoding == "base64":
		kv = append(kv, [2]string{"value (base64)", *s.Value})
	case *reveal && s.Value != nil:
		kv = append(kv, [2]string{"value", *s.Value})
	default:
		kv = append(kv, [2]string{"value", "(hidden: --reveal or --field value)"})
	}
	return fields(e.stdout, kv)
}

// decodeValue turns the value field of a read into its bytes: as it is
// for text, decoded for "encoding": "base64".
func decodeValue(m map[string]json.RawMessage, value string) (string, error) {
	var enc string
	if raw, ok := m["encoding"]; ok {
		if err := json.Unmarshal(raw, &enc); err != nil {
			return "", fmt.Errorf("decoding secret: %w", err)
		}
	}
	switch enc {
	case "", "utf8":
		return value, nil
	case "base64":
		b, err := base64.StdEncoding.DecodeString(value)
		if err != nil {
			return "", fmt.Errorf("decoding the base64 value: %w", err)
		}
		return string(b), nil
	default:
		return "", fmt.Errorf("decoding secret: unknown value encoding %q", enc)
	}
}

func secretList(ctx context.Context, e *cmdEnv, args []string) error {
	fs := e.flags("ocv secret list", "ocv secret list --vault V [--prefix P]")
	vault := fs.String("vault", "", "vault id or name")
	prefix := fs.String("prefix", "", "only paths that start with this string")
	if _, err := positional(fs, args); err != nil {
		return err
	}
	if *vault == "" {
		return fmt.Errorf("%w: --vault is required", ErrUsage)
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	id, err := resolveVault(ctx, c, *vault)
	if err != nil {
		return err
	}
	items, err := listSecrets(ctx, c, id, *prefix)
	if err != nil {
		return err
	}
	if e.g.json {
		raws := make([]json.RawMessage, len(items))
		for i, s := range items {
			raws[i] = s.raw
		}
		return listJSON(e, raws)
	}
	rows := make([][]string, 0, len(items))
	for _, s := range items {
		rows = append(rows, []string{s.Path, s.Type, fmt.Sprint(s.Version), s.UpdatedAt, orDash(s.ExpiresAt)})
	}
	return table(e.stdout, []string{"PATH", "TYPE", "VERSION", "UPDATED", "EXPIRES"}, rows)
}

// listedSecret is a list item with its raw JSON.
type listedSecret struct {
	api.Secret
	raw json.RawMessage
}

// listSecrets returns every secret under prefix (all pages).
func listSecrets(ctx context.Context, c *client, vaultID, prefix string) ([]listedSecret, error) {
	q := url.Values{}
	if prefix != "" {
		q.Set("prefix", prefix)
	}
	items, err := listAll(ctx, c, "/v1/vaults/"+url.PathEscape(vaultID)+"/secrets", q)
	if err != nil {
		return nil, err
	}
	out := make([]listedSecret, len(items))
	for i, raw := range items {
		out[i].raw = raw
		if err := json.Unmarshal(raw, &out[i].Secret); err != nil {
			return nil, fmt.Errorf("decoding secret: %w", err)
		}
	}
	return out, nil
}

func secretDelete(ctx context.Context, e *cmdEnv, args []string) error {
	fs := e.flags("ocv secret delete", "ocv secret delete --vault V PATH")
	vault := fs.String("vault", "", "vault id or name")
	pos, err := positional(fs, args, "PATH")
	if err != nil {
		return err
	}
	c, u, err := secretTarget(ctx, e, *vault, pos[0])
	if err != nil {
		return err
	}
	if _, err := c.call(ctx, http.MethodDelete, u, nil, nil); err != nil {
		return err
	}
	if e.g.json {
		return rawJSON(e.stdout, []byte(`{"deleted":true}`))
	}
	fmt.Fprintf(e.stdout, "Deleted %s\n", clean(pos[0]))
	return nil
}
