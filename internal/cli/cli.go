package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
)

// ErrUsage marks a command line that could not be understood.
var ErrUsage = errors.New("usage")

const usage = `ocv: the Open Custody Vault command line

  ocv audit verify   walk every audit chain and name the first broken link
  ocv attest verify  verify an enclave attestation document offline

Run "ocv <command> <subcommand> -h" for the flags of each.
`

// Run runs the command line args (without the program name) and returns the
// process exit code.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) < 2 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] + " " + args[1] {
	case "audit verify":
		err = auditVerify(ctx, args[2:], stdout, stderr)
	case "attest verify":
		err = attestVerify(ctx, args[2:], stdout, stderr)
	default:
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, ErrUsage), errors.Is(err, flag.ErrHelp):
		return 2
	default:
		fmt.Fprintln(stderr, "ocv:", err)
		return 1
	}
}

func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

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
