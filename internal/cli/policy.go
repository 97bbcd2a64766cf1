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
	"time"

	"github.com/opencustody/ocv/api"
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
	in := api.PolicyWrite{SecretPathPattern: &p.pattern, PrincipalType: &p.principalType, PrincipalID: &p.principal,
		Permissions: perms, Effect: &p.effect, Priority: &p.priority}
	if len(p.ips) > 0 || len(p.envs) > 0 {
		in.Conditions = &api.PolicyConditions{}
		if len(p.ips) > 0 {
			in.Conditions.IPCIDRs = p.ips
		}
		if len(p.envs) > 0 {
			in.Conditions.EnvironmentIn = p.envs
		}
	}
	if p.expires != "" {
		t, err := time.Parse(time.RFC3339, p.expires)
		if err != nil {
			return nil, fmt.Errorf("%w: expires_at must be an RFC 3339 time like 2030-01-02T15:04:05Z", ErrUsage)
		}
		in.ExpiresAt = &t
	}
	return in, nil
}

// policyRow is the table row of a policy.
func policyRow(p api.Policy) []string {
	return []string{p.ID, p.Effect, strings.Join(p.Permissions, ","), p.SecretPathPattern, p.PrincipalType + "/" + p.PrincipalID,
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
	var p api.Policy
	if err := json.Unmarshal(body, &p); err != nil {
		return fmt.Errorf("decoding policy: %w", err)
	}
	return table(e.stdout, policyHeaders, [][]string{policyRow(p)})
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
		var p api.Policy
		if err := json.Unmarshal(raw, &p); err != nil {
			return fmt.Errorf("decoding policy: %w", err)
		}
		rows = append(rows, policyRow(p))
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
