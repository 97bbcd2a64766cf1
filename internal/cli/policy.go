package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// policyFlags are the flags that build a policy body (create and update).
type policyFlags struct {
	vault, pattern, principalType, principal, permissions, effect, expires, file string
	priority                                                                     int64
	ips, envs                                                                    listFlag
}

func bindPolicyFlags(fs *flag.FlagSet, p *policyFlags) {
	fs.StringVar(&p.vault, "vault", "", "vault id or name")
	fs.StringVar(&p.pattern, "pattern", "", "secret path pattern the policy covers (e.g. prod/*)")
	fs.StringVar(&p.principalType, "principal-type", "user", "user or agent")
	fs.StringVar(&p.principal, "principal", "", "the user's or agent's id")
	fs.StringVar(&p.permissions, "permissions", "read", "comma-separated: read, write")
	fs.StringVar(&p.effect, "effect", "allow", "allow or deny")
	fs.Int64Var(&p.priority, "priority", 0, "higher priorities decide first")
	fs.StringVar(&p.expires, "expires-at", "", "RFC 3339 time the policy stops applying")
	fs.Var(&p.ips, "ip", "allowed client CIDR (repeatable)")
	fs.Var(&p.envs, "environment-in", "agent environment the policy applies to (repeatable)")
	fs.StringVar(&p.file, "file", "", "JSON policy body (the API's PolicyWrite) to send as is instead of the flags; - for stdin")
}

// body builds the request body from the flags or the --file.
func (p *policyFlags) body(stdin io.Reader) (any, error) {
	if p.file != "" {
		var b []byte
		var err error
		if p.file == "-" {
			b, err = io.ReadAll(io.LimitReader(stdin, 1<<20))
		} else {
			b, err = os.ReadFile(p.file)
		}
		if err != nil {
			return nil, fmt.Errorf("reading the policy file: %w", err)
		}
		if !json.Valid(b) {
			return nil, fmt.Errorf("%w: the policy file is not valid JSON", ErrUsage)
		}
		return json.RawMessage(b), nil
	}
	if p.pattern == "" || p.principal == "" {
		return nil, fmt.Errorf("%w: --pattern and --principal are required (or --file)", ErrUsage)
	}
	perms := []string{}
	for _, q := range strings.Split(p.permissions, ",") {
		if q = strings.TrimSpace(q); q != "" {
			perms = append(perms, q)
		}
	}
	in := map[string]any{"secret_path_pattern": p.pattern, "principal_type": p.principalType, "principal_id": p.principal,
		"permissions": perms, "effect": p.effect, "priority": p.priority}
	if len(p.ips) > 0 || len(p.envs) > 0 {
		cond := map[string]any{}
		if len(p.ips) > 0 {
			cond["ip_cidrs"] = []string(p.ips)
		}
		if len(p.envs) > 0 {
			cond["environment_in"] = []string(p.envs)
		}
		in["conditions"] = cond
	}
	if err := setTime(in, "expires_at", p.expires); err != nil {
		return nil, err
	}
	return in, nil
}

// policyInfo is the part of a policy the tables show.
type policyInfo struct {
	ID            string   `json:"id"`
	Pattern       string   `json:"secret_path_pattern"`
	PrincipalType string   `json:"principal_type"`
	PrincipalID   string   `json:"principal_id"`
	Permissions   []string `json:"permissions"`
	Effect        string   `json:"effect"`
	Priority      int      `json:"priority"`
	ExpiresAt     *string  `json:"expires_at"`
}

func (p policyInfo) row() []string {
	return []string{p.ID, p.Effect, strings.Join(p.Permissions, ","), p.Pattern, p.PrincipalType + "/" + p.PrincipalID,
		strconv.Itoa(p.Priority), orDash(p.ExpiresAt)}
}

var policyHeaders = []string{"ID", "EFFECT", "PERMISSIONS", "PATTERN", "PRINCIPAL", "PRIORITY", "EXPIRES"}

// policyWrite creates (id "") or replaces a policy.
func policyWrite(ctx context.Context, e *cmdEnv, name, synopsis string, args []string, update bool) error {
	fs := e.flags(name, synopsis)
	var p policyFlags
	bindPolicyFlags(fs, &p)
	var names []string
	if update {
		names = []string{"ID"}
	}
	pos, err := positional(fs, args, names...)
	if err != nil {
		return err
	}
	in, err := p.body(e.stdin)
	if err != nil {
		return err
	}
	c, base, err := policyBase(ctx, e, p.vault)
	if err != nil {
		return err
	}
	method, path := http.MethodPost, base
	if update {
		method, path = http.MethodPut, base+"/"+url.PathEscape(pos[0])
	}
	body, err := c.call(ctx, method, path, nil, in)
	if err != nil {
		return err
	}
	return printPolicy(e, body)
}

func policyBase(ctx context.Context, e *cmdEnv, vault string) (*client, string, error) {
	if vault == "" {
		return nil, "", fmt.Errorf("%w: --vault is required", ErrUsage)
	}
	c, err := e.client()
	if err != nil {
		return nil, "", err
	}
	id, err := resolveVault(ctx, c, vault)
	if err != nil {
		return nil, "", err
	}
	return c, "/v1/vaults/" + url.PathEscape(id) + "/policies", nil
}

func printPolicy(e *cmdEnv, body []byte) error {
	if e.g.json {
		return rawJSON(e.stdout, body)
	}
	var p policyInfo
	if err := json.Unmarshal(body, &p); err != nil {
		return fmt.Errorf("decoding policy: %w", err)
	}
	return table(e.stdout, policyHeaders, [][]string{p.row()})
}

func policyCreate(ctx context.Context, e *cmdEnv, args []string) error {
	return policyWrite(ctx, e, "ocv policy create",
		"ocv policy create --vault V --pattern P --principal ID [--principal-type user|agent] [--permissions read,write] [--effect allow|deny] [--priority N] [--ip CIDR ...] [--environment-in E ...] [--expires-at T] | --file F", args, false)
}

func policyUpdate(ctx context.Context, e *cmdEnv, args []string) error {
	return policyWrite(ctx, e, "ocv policy update",
		"ocv policy update --vault V ID (the same flags as create: the policy is replaced as a whole)", args, true)
}

func policyList(ctx context.Context, e *cmdEnv, args []string) error {
	fs := e.flags("ocv policy list", "ocv policy list --vault V")
	vault := fs.String("vault", "", "vault id or name")
	if _, err := positional(fs, args); err != nil {
		return err
	}
	c, base, err := policyBase(ctx, e, *vault)
	if err != nil {
		return err
	}
	items, err := listAll(ctx, c, base, nil)
	if err != nil {
		return err
	}
	if e.g.json {
		return listJSON(e, items)
	}
	rows := make([][]string, 0, len(items))
	for _, raw := range items {
		var p policyInfo
		if err := json.Unmarshal(raw, &p); err != nil {
			return fmt.Errorf("decoding policy: %w", err)
		}
		rows = append(rows, p.row())
	}
	return table(e.stdout, policyHeaders, rows)
}

func policyDelete(ctx context.Context, e *cmdEnv, args []string) error {
	fs := e.flags("ocv policy delete", "ocv policy delete --vault V ID")
	vault := fs.String("vault", "", "vault id or name")
	pos, err := positional(fs, args, "ID")
	if err != nil {
		return err
	}
	c, base, err := policyBase(ctx, e, *vault)
	if err != nil {
		return err
	}
	if _, err := c.call(ctx, http.MethodDelete, base+"/"+url.PathEscape(pos[0]), nil, nil); err != nil {
		return err
	}
	if e.g.json {
		return rawJSON(e.stdout, []byte(`{"deleted":true}`))
	}
	fmt.Fprintf(e.stdout, "Deleted policy %s\n", pos[0])
	return nil
}
