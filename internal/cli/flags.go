package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// defaultURL is the proxy that `make run` serves.
const defaultURL = "https://127.0.0.1:8443"

// defaultCACert is the dev CA `make run` writes, used when it exists.
const defaultCACert = ".ocv/tls/ca.pem"

// globals are the flags every API command takes.
type globals struct {
	url    string
	cacert string
	json   bool
	token  string
}

func envGlobals(getenv func(string) string) globals {
	g := globals{url: getenv("OCV_URL"), cacert: getenv("OCV_CACERT"), token: getenv("OCV_TOKEN")}
	if g.url == "" {
		g.url = defaultURL
	}
	return g
}

func (g *globals) bind(fs *flag.FlagSet) {
	fs.StringVar(&g.url, "url", g.url, "API base URL ($OCV_URL)")
	fs.StringVar(&g.cacert, "cacert", g.cacert, "PEM CA to trust ($OCV_CACERT; default "+defaultCACert+" when it exists, else the system roots)")
	fs.BoolVar(&g.json, "json", g.json, "print the API's JSON as is")
	fs.Var((*hiddenString)(&g.token), "token", "access token or API key to use instead of the cached login ($OCV_TOKEN)")
}

// hiddenString is a string flag whose value never shows in help output.
type hiddenString string

func (h *hiddenString) String() string     { return "" }
func (h *hiddenString) Set(v string) error { *h = hiddenString(v); return nil }

// parseGlobals reads the global flags before the command name.
func parseGlobals(args []string, getenv func(string) string, stderr io.Writer) (globals, []string, error) {
	g := envGlobals(getenv)
	fs := newFlags("ocv", stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	g.bind(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return g, nil, err
		}
		return g, nil, fmt.Errorf("%w: %v", ErrUsage, err)
	}
	return g, fs.Args(), nil
}

// parseInterspersed parses flags anywhere among the positional arguments,
// up to a "--", and returns the positional ones; after "--" everything is
// positional. It returns whether a "--" was seen.
func parseInterspersed(fs *flag.FlagSet, args []string) (pos []string, dashdash bool, err error) {
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, false, err
			}
			return nil, false, fmt.Errorf("%w: %v", ErrUsage, err)
		}
		rest := fs.Args()
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), true, nil
		}
		if len(rest) == 0 {
			return pos, false, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// positional parses fs and requires exactly n positional arguments named by names.
func positional(fs *flag.FlagSet, args []string, names ...string) ([]string, error) {
	pos, _, err := parseInterspersed(fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != len(names) {
		if len(names) == 0 {
			return nil, fmt.Errorf("%w: unexpected argument %q", ErrUsage, pos[0])
		}
		return nil, fmt.Errorf("%w: %s expects %s", ErrUsage, fs.Name(), strings.Join(names, " "))
	}
	return pos, nil
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// kvFlag is a repeatable key=value flag.
type kvFlag map[string]string

func (m kvFlag) String() string { return "" }

func (m kvFlag) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return errors.New("expected key=value")
	}
	m[k] = val
	return nil
}

func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parse parses fs and refuses positional arguments (audit and attest).
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", ErrUsage, fs.Arg(0))
	}
	return nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
