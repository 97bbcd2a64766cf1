package proxy

import (
	"net/http"
	"os"
	"syscall"

	"github.com/opencustody/ocv/internal/testbuild"
)

// Environment variables of the crash hooks (TEST ONLY).
const (
	envCrashAfterCommit  = "OCV_TEST_CRASH_AFTER_COMMIT"
	envCrashBeforeCommit = "OCV_TEST_CRASH_BEFORE_COMMIT"
)

// crashHooks make the proxy kill itself (SIGKILL, no cleanup) in an
// idempotent request of the route "METHOD PATTERN" (for example
// "PUT /v1/vaults/{vault_id}/secrets/{path...}"): AfterCommit right after
// its idempotent transaction commits and before anything is answered,
// BeforeCommit after the handler ran and before the commit. They let the
// end-to-end tests prove exactly-once. A binary built without -tags ocvtest
// refuses to start with either set (they are in testOnlySettings), and
// crashMatches never matches in it.
type crashHooks struct {
	AfterCommit  string
	BeforeCommit string
}

func (c *crashHooks) applyEnv(lookup func(string) (string, bool)) {
	if v, ok := lookup(envCrashAfterCommit); ok {
		c.AfterCommit = v
	}
	if v, ok := lookup(envCrashBeforeCommit); ok {
		c.BeforeCommit = v
	}
}

// matches reports whether pattern ("METHOD PATTERN") names r's route; an
// empty pattern, or a production binary, matches nothing.
func crashMatches(pattern string, r *http.Request) bool {
	if !testbuild.Enabled || pattern == "" {
		return false
	}
	rt := routeFrom(r.Context())
	return rt != nil && pattern == rt.Method+" "+rt.Pattern
}

// crash kills this process at once, as a power cut would.
func crash() {
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // the signal is on its way
}
