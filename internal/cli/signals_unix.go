//go:build unix

package cli

import (
	"os"
	"syscall"
)

// forwardedSignals are passed on to ocv run's child.
var forwardedSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH}
