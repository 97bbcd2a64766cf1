package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

const usage = `ocv: the Open Custody Vault command line

Usage: ocv [global flags] <command> [flags] [arguments]

Session:
  ocv login [--email E] [--password-stdin]   sign in with email and password (prompted without echo)
  ocv login --api-key                         sign in with a personal API key ($OCV_API_KEY or stdin)
  ocv login --agent ID                        sign in as an agent with its key ($OCV_AGENT_KEY or stdin)
  ocv logout                                  revoke the session and forget its tokens
  ocv token                                   print the access token (for scripts)

Vaults:
  ocv vault create NAME [--description D]
  ocv vault list
  ocv vault get ID
  ocv vault delete ID

Secrets (--vault takes a vault id or name):
  ocv secret put --vault V PATH (--value-stdin | --value-file F | --value V) [--type T] [--metadata k=v ...] [--expires-at RFC3339]
  ocv secret get --vault V PATH [--field value] [--reveal]
  ocv secret list --vault V [--prefix P]
  ocv secret delete --vault V PATH
  ocv run --vault V --path P [--path P2 ...] [--env NAME=PATH ...] -- COMMAND [ARGS...]

Agents:
  ocv agent create NAME [--description D] [--scope PATTERN ...] [--environment E] [--key-expires-at T] [--key-file F]
  ocv agent list
  ocv agent get ID
  ocv agent me                                 (signed in as an agent)
  ocv agent rotate-key ID [--key-expires-at T] [--key-file F]
  ocv agent delete ID                          deactivate: its key and tokens stop working
  (the agent key is shown once: printed, or written to --key-file with mode 0600)

Policies (owners and admins):
  ocv policy create --vault V --pattern P --principal ID [--principal-type user|agent] [--permissions read,write]
                    [--effect allow|deny] [--priority N] [--ip CIDR ...] [--environment-in E ...] [--expires-at T]
  ocv policy create --vault V --file F         send a full JSON policy body (- for stdin)
  ocv policy list --vault V
  ocv policy update --vault V ID ...           replace the policy (same flags as create)
  ocv policy delete --vault V ID

Shares (links to one secret; see docs for recipient types):
  ocv share create (SECRET_ID | --vault V --path P) [--to anyone_with_link|creator|external_email|user|agent]
                   [--email E] [--recipient ID] [--expires-in 24h | --expires-at T] [--max-access N]
                   [--passphrase-stdin] [--ip CIDR ...]
  ocv share list [--inbound]                   shares you made (or, with --inbound, made to you)
  ocv share open ID|LINK [--passphrase-stdin]  print the shared value (anonymous; no login needed)
  ocv share revoke ID

Webhooks (owners and admins; deliveries are signed, see the README):
  ocv webhook create URL --event NAME [--event NAME ...] [--description D]   (the secret is shown once)
  ocv webhook list
  ocv webhook get ID                           with its recent deliveries
  ocv webhook update ID [--endpoint URL] [--event NAME ...] [--description D] [--active=true|false]
  ocv webhook delete ID
  ocv webhook replay ID DELIVERY_ID            send one delivery again (same event id; a new attempt series)
  ocv webhook replay ID --from T --to T        send again the failed (dead-letter) deliveries created in [T, T)

Tool server for AI agents (see docs/mcp.md):
  ocv mcp [--agent-id ID] [--agent-key-file F] [--vault ID] [--reveal-values=false] [--http ADDR]
                                               MCP over stdio (default) or streamable HTTP; key from $OCV_AGENT_KEY

Offline verification:
  ocv audit verify   walk every audit chain and name the first broken link (--heads DIR: also against the external heads)
  ocv attest verify  verify an enclave attestation document offline

Global flags (before or after the command):
  --url URL      API base URL (default $OCV_URL, else ` + defaultURL + `)
  --cacert FILE  PEM CA to trust (default $OCV_CACERT, else ` + defaultCACert + ` when it exists, else the system roots)
  --json         print the API's JSON as is instead of tables
  --token T      use this access token or API key instead of the cached login ($OCV_TOKEN)

Logins are cached per URL in $XDG_CONFIG_HOME/ocv/credentials.json (default ~/.config/ocv), mode 0600.

Exit codes: 0 success; 1 error (API problems print as "ocv: <title>: <detail> (<type>, HTTP <status>)");
2 usage error; ocv run exits with its child's code (127 when it cannot be started, 128+N on signal N).

Run "ocv <command> [<subcommand>] -h" for the flags of each.
`

// cmdEnv is what a command runs with.
type cmdEnv struct {
	g      globals
	stdin  *os.File
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

// flags returns a flag set for the command name that also takes the globals.
func (e *cmdEnv) flags(name, synopsis string) *flag.FlagSet {
	fs := newFlags(name, e.stderr)
	e.g.bind(fs)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "Usage: %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// client builds the API client from the parsed globals.
func (e *cmdEnv) client() (*client, error) {
	dir, err := credDir(e.getenv)
	if err != nil {
		return nil, err
	}
	return newClient(e.g, credStore{dir: dir})
}

type command func(ctx context.Context, e *cmdEnv, args []string) error

var commands = map[string]command{
	"login":            login,
	"logout":           logout,
	"token":            printToken,
	"vault create":     vaultCreate,
	"vault list":       vaultList,
	"vault get":        vaultGet,
	"vault delete":     vaultDelete,
	"secret put":       secretPut,
	"secret get":       secretGet,
	"secret list":      secretList,
	"secret delete":    secretDelete,
	"run":              runChild,
	"agent create":     agentCreate,
	"agent list":       agentList,
	"agent get":        agentGet,
	"agent me":         agentMe,
	"agent rotate-key": agentRotateKey,
	"agent delete":     agentDelete,
	"policy create":    policyCreate,
	"policy list":      policyList,
	"policy update":    policyUpdate,
	"policy delete":    policyDelete,
	"share create":     shareCreate,
	"share list":       shareList,
	"share open":       shareOpen,
	"share revoke":     shareRevoke,
	"webhook create":   webhookCreate,
	"webhook list":     webhookList,
	"webhook get":      webhookGet,
	"webhook update":   webhookUpdate,
	"webhook delete":   webhookDelete,
	"webhook replay":   webhookReplay,
	"mcp":              mcpServe,
	"audit verify": func(ctx context.Context, e *cmdEnv, args []string) error {
		return auditVerify(ctx, args, e.stdout, e.stderr)
	},
	"attest verify": func(ctx context.Context, e *cmdEnv, args []string) error {
		return attestVerify(ctx, args, e.stdout, e.stderr)
	},
}

// Run runs the command line args (without the program name) and returns the
// process exit code.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return run(ctx, &cmdEnv{stdin: os.Stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv}, args)
}

func run(ctx context.Context, e *cmdEnv, args []string) int {
	g, rest, err := parseGlobals(args, e.getenv, e.stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(e.stderr, "ocv:", err)
		return 2
	}
	e.g = g
	if len(rest) == 0 || rest[0] == "help" {
		fmt.Fprint(e.stderr, usage)
		return 2
	}
	cmd, n := commands[rest[0]], 1
	if len(rest) > 1 {
		if c, ok := commands[rest[0]+" "+rest[1]]; ok {
			cmd, n = c, 2
		}
	}
	if cmd == nil {
		fmt.Fprintf(e.stderr, "ocv: unknown command %q\n\n%s", rest[0], usage)
		return 2
	}
	return exitCode(cmd(ctx, e, rest[n:]), e.stderr)
}

// exitCode prints err as the user sees it and maps it to the exit code.
func exitCode(err error, stderr io.Writer) int {
	var code *exitCodeError
	var p *ProblemError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &code):
		return code.code
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, ErrUsage):
		fmt.Fprintln(stderr, "ocv:", err)
		return 2
	case errors.As(err, &p):
		fmt.Fprintln(stderr, "ocv:", p.Error())
		return 1
	default:
		fmt.Fprintln(stderr, "ocv:", err)
		return 1
	}
}
