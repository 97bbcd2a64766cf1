//go:build !unix

package cli

import "os"

// forwardedSignals are passed on to ocv run's child.
var forwardedSignals = []os.Signal{os.Interrupt}
