package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"sort"
	"strings"
	"syscall"

	"github.com/opencustody/ocv/api"
)

var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// parseEnvFlags reads --env NAME=PATH mappings into name → path.
func parseEnvFlags(flags []string) (map[string]string, error) {
	out := map[string]string{}
	for _, f := range flags {
		name, path, ok := strings.Cut(f, "=")
		if !ok || !envNameRE.MatchString(name) || path == "" {
			return nil, fmt.Errorf("%w: --env takes NAME=PATH with NAME a valid variable name, got %q", ErrUsage, f)
		}
		if prev, dup := out[name]; dup && prev != path {
			return nil, fmt.Errorf("%w: --env %s is given twice", ErrUsage, name)
		}
		out[name] = path
	}
	return out, nil
}

// envMapping decides the variable of every secret: explicit mappings first,
// then the derived name of each listed path that no explicit mapping names.
// Two listed paths with the same derived name are an error (ErrEnvConflict):
// picking one silently would hand the child the wrong secret.
func envMapping(listed []string, explicit map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(listed)+len(explicit))
	mapped := map[string]bool{}
	for name, path := range explicit {
		out[name] = path
		mapped[path] = true
	}
	for _, p := range listed {
		if mapped[p] {
			continue
		}
		name := api.EnvName(p)
		if _, ok := explicit[name]; ok {
			continue
		}
		if prev, ok := out[name]; ok && prev != p {
			return nil, fmt.Errorf("%w: %s and %s both map to %s (map one with --env NAME=PATH)", ErrEnvConflict, prev, p, name)
		}
		out[name] = p
	}
	return out, nil
}

// underPrefix reports whether path is prefix itself or inside it as a folder.
func underPrefix(path, prefix string) bool {
	return prefix == "" || path == prefix || strings.HasPrefix(path, prefix+"/")
}

// childEnv is base without the CLI's own credentials and without the names
// set, plus the secrets.
func childEnv(base []string, vars map[string]string) []string {
	out := make([]string, 0, len(base)+len(vars))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if _, set := vars[name]; set || name == "OCV_TOKEN" || name == "OCV_API_KEY" {
			continue
		}
		out = append(out, kv)
	}
	names := make([]string, 0, len(vars))
	for n := range vars {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		out = append(out, n+"="+vars[n])
	}
	return out
}

func runChild(ctx context.Context, e *cmdEnv, args []string) error {
	fs := e.flags("ocv run", "ocv run --vault V --path P [--path P2 ...] [--env NAME=PATH ...] -- COMMAND [ARGS...]")
	vault := fs.String("vault", "", "vault id or name")
	var prefixes, envFlags listFlag
	fs.Var(&prefixes, "path", "inject every secret at or under this path (repeatable; \"/\" for the whole vault)")
	fs.Var(&envFlags, "env", "NAME=PATH: inject the secret at PATH as NAME (repeatable; wins over derived names)")
	// Flags stop at the command: its own flags are not ours.
	if err := parse1(fs, args); err != nil {
		return err
	}
	argv := fs.Args()
	if len(argv) == 0 {
		return fmt.Errorf("%w: ocv run needs a command after --", ErrUsage)
	}
	if *vault == "" || (len(prefixes) == 0 && len(envFlags) == 0) {
		return fmt.Errorf("%w: ocv run needs --vault and at least one --path or --env", ErrUsage)
	}
	explicit, err := parseEnvFlags(envFlags)
	if err != nil {
		return err
	}
	vars, err := fetchVars(ctx, e, *vault, prefixes, explicit)
	if err != nil {
		return err
	}
	return execChild(e, argv, childEnv(os.Environ(), vars))
}

// parse1 parses fs up to the first non-flag argument (or "--").
func parse1(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	return nil
}

// fetchVars lists the prefixes, maps paths to names and reads every value.
func fetchVars(ctx context.Context, e *cmdEnv, vault string, prefixes []string, explicit map[string]string) (map[string]string, error) {
	c, err := e.client()
	if err != nil {
		return nil, err
	}
	id, err := resolveVault(ctx, c, vault)
	if err != nil {
		return nil, err
	}
	var listed []string
	for _, p := range prefixes {
		p = strings.Trim(p, "/")
		secs, err := listSecrets(ctx, c, id, p)
		if err != nil {
			return nil, err
		}
		n := 0
		for _, s := range secs {
			if underPrefix(s.Path, p) {
				listed = append(listed, s.Path)
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("no secret at or under %q in vault %s", p, vault)
		}
	}
	mapping, err := envMapping(listed, explicit)
	if err != nil {
		return nil, err
	}
	vars := make(map[string]string, len(mapping))
	for name, path := range mapping {
		u, err := secretURL(id, path)
		if err != nil {
			return nil, err
		}
		body, err := c.call(ctx, http.MethodGet, u, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		var s api.Secret
		if err := json.Unmarshal(body, &s); err != nil || s.Value == nil {
			return nil, fmt.Errorf("reading %s: the answer has no value", path)
		}
		if s.Encoding == "base64" {
			return nil, fmt.Errorf("reading %s: the value is binary (not UTF-8 text) and cannot be an environment variable", path)
		}
		if strings.IndexByte(*s.Value, 0) >= 0 {
			return nil, fmt.Errorf("reading %s: the value holds a NUL byte and cannot be an environment variable", path)
		}
		vars[name] = *s.Value
	}
	return vars, nil
}

// execChild runs argv, forwards signals to it and returns its exit code as
// an exitCodeError (nil for 0).
func execChild(e *cmdEnv, argv []string, env []string) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = env, e.stdin, e.stdout, e.stderr
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, forwardedSignals...)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(e.stderr, "ocv: starting %s: %v\n", argv[0], err)
		return &exitCodeError{code: 127}
	}
	// A terminal already sends ^C and ^\ to the whole foreground process
	// group, the child included: forwarding those again would deliver them twice.
	fromTerminal := isTerminal(e.stdin)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				if fromTerminal && (s == syscall.SIGINT || s == syscall.SIGQUIT) {
					continue
				}
				_ = cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return fmt.Errorf("waiting for %s: %w", argv[0], err)
	}
	code := cmd.ProcessState.ExitCode()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	if code == 0 {
		return nil
	}
	return &exitCodeError{code: code}
}
