package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/opencustody/ocv/api"
)

func printAgent(e *cmdEnv, body []byte) error {
	if e.g.json {
		return rawJSON(e.stdout, body)
	}
	var a api.Agent
	if err := json.Unmarshal(body, &a); err != nil {
		return fmt.Errorf("decoding agent: %w", err)
	}
	scopes := "(derived from policies)"
	if a.Scopes != nil {
		scopes = strings.Join(a.Scopes, ", ")
	}
	return fields(e.stdout, [][2]string{{"id", a.ID}, {"name", a.Name}, {"description", a.Description},
		{"status", a.Status}, {"environment", orDash(a.Environment)}, {"scopes", scopes},
		{"api_key", "ocv_…" + a.APIKeyLastFour}, {"api_key_expires_at", orDash(a.APIKeyExpiresAt)}, {"created_at", a.CreatedAt}})
}

// deliverKey writes a freshly shown agent key to keyFile (0600, never
// overwriting) or, without one, prints it once. The API shows a key only
// once: it is printed in the human output too, since it would be lost
// otherwise, unless --key-file keeps it off the terminal.
func deliverKey(e *cmdEnv, body []byte, keyFile string) error {
	var a api.AgentCreated
	if err := json.Unmarshal(body, &a); err != nil || a.APIKey == "" {
		return errors.New("decoding agent: the answer has no api_key")
	}
	if keyFile != "" {
		f, err := os.OpenFile(keyFile, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%w: --key-file %s already exists", ErrUsage, keyFile)
		}
		if err != nil {
			return fmt.Errorf("writing the agent key: %w", err)
		}
		_, err = f.WriteString(a.APIKey + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("writing the agent key: %w", err)
		}
	}
	if e.g.json {
		if keyFile != "" {
			var m map[string]any
			if err := json.Unmarshal(body, &m); err != nil {
				return fmt.Errorf("decoding agent: %w", err)
			}
			delete(m, "api_key")
			b, _ := json.Marshal(m)
			return rawJSON(e.stdout, b)
		}
		return rawJSON(e.stdout, body)
	}
	fmt.Fprintf(e.stdout, "Agent %s (%s)\n", clean(a.Name), a.ID)
	if keyFile != "" {
		fmt.Fprintf(e.stdout, "API key written to %s (mode 0600)\n", keyFile)
		return nil
	}
	fmt.Fprintf(e.stdout, "API key (shown once, store it now): %s\n", a.APIKey)
	return nil
}

func agentCreate(ctx context.Context, e *cmdEnv, args []string) error {
	fs := e.flags("ocv agent create", "ocv agent create NAME [--description D] [--scope PATTERN ...] [--environment E] [--key-expires-at RFC3339] [--key-file F]")
	desc := fs.String("description", "", "what the agent does")
	var scopes listFlag
	fs.Var(&scopes, "scope", "secret path pattern the agent may reach (repeatable; default: derived from its policies)")
	env := fs.String("environment", "", "environment label (e.g. production)")
	expires := fs.String("key-expires-at", "", "RFC 3339 time the key stops working")
	keyFile := fs.String("key-file", "", "write the key to this new file (0600) instead of printing it")
	pos, err := positional(fs, args, "NAME")
	if err != nil {
		return err
	}
	in := map[string]any{"name": pos[0]}
	if *desc != "" {
		in["description"] = *desc
	}
	if scopes != nil {
		in["scopes"] = []string(scopes)
	}
	if *env != "" {
		in["environment"] = *env
	}
	if err := setTime(in, "api_key_expires_at", *expires); err != nil {
		return err
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	body, err := c.call(ctx, http.MethodPost, "/v1/agents", nil, in)
	if err != nil {
		return err
	}
	return deliverKey(e, body, *keyFile)
}

func setTime(in map[string]any, field, v string) error {
	if v == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return fmt.Errorf("%w: %s must be an RFC 3339 time like 2030-01-02T15:04:05Z", ErrUsage, field)
	}
	in[field] = t.Format(time.RFC3339Nano)
	return nil
}

func agentList(ctx context.Context, e *cmdEnv, args []string) error {
	return listCommand(ctx, e, args, "agent", "/v1/agents", []string{"ID", "NAME", "STATUS", "ENVIRONMENT", "CREATED"},
		func(a api.Agent) []string {
			return []string{a.ID, a.Name, a.Status, orDash(a.Environment), a.CreatedAt}
		})
}

// agentID parses the flags and the one agent ID argument.
func agentID(fs *flag.FlagSet, args []string) (string, error) {
	pos, err := positional(fs, args, "ID")
	if err != nil {
		return "", err
	}
	if !uuidRE.MatchString(pos[0]) {
		return "", fmt.Errorf("%w: expected an agent id (see ocv agent list)", ErrUsage)
	}
	return pos[0], nil
}

// agentCall sends a request to /v1/agents/{id}[suffix].
func agentCall(ctx context.Context, e *cmdEnv, method, id, suffix string, in any) ([]byte, error) {
	c, err := e.client()
	if err != nil {
		return nil, err
	}
	return c.call(ctx, method, "/v1/agents/"+url.PathEscape(id)+suffix, nil, in)
}

func agentGet(ctx context.Context, e *cmdEnv, args []string) error {
	id, err := agentID(e.flags("ocv agent get", "ocv agent get ID"), args)
	if err != nil {
		return err
	}
	body, err := agentCall(ctx, e, http.MethodGet, id, "", nil)
	if err != nil {
		return err
	}
	return printAgent(e, body)
}

func agentMe(ctx context.Context, e *cmdEnv, args []string) error {
	fs := e.flags("ocv agent me", "ocv agent me (signed in as an agent)")
	if _, err := positional(fs, args); err != nil {
		return err
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	body, err := c.call(ctx, http.MethodGet, "/v1/agents/me", nil, nil)
	if err != nil {
		return err
	}
	return printAgent(e, body)
}

func agentRotateKey(ctx context.Context, e *cmdEnv, args []string) error {
	fs := e.flags("ocv agent rotate-key", "ocv agent rotate-key ID [--key-expires-at RFC3339] [--key-file F]")
	expires := fs.String("key-expires-at", "", "RFC 3339 time the new key stops working")
	keyFile := fs.String("key-file", "", "write the new key to this new file (0600) instead of printing it")
	id, err := agentID(fs, args)
	if err != nil {
		return err
	}
	in := map[string]any{}
	if err := setTime(in, "api_key_expires_at", *expires); err != nil {
		return err
	}
	body, err := agentCall(ctx, e, http.MethodPost, id, "/rotate-key", in)
	if err != nil {
		return err
	}
	return deliverKey(e, body, *keyFile)
}

func agentDelete(ctx context.Context, e *cmdEnv, args []string) error {
	id, err := agentID(e.flags("ocv agent delete", "ocv agent delete ID"), args)
	if err != nil {
		return err
	}
	if _, err := agentCall(ctx, e, http.MethodDelete, id, "", nil); err != nil {
		return err
	}
	if e.g.json {
		return rawJSON(e.stdout, []byte(`{"deleted":true}`))
	}
	fmt.Fprintf(e.stdout, "Deactivated agent %s (its key and tokens no longer work)\n", id)
	return nil
}
