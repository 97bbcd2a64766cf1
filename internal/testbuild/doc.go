// Package testbuild says whether this binary was built for end-to-end
// tests (go build -tags ocvtest). Settings and hooks that would weaken a
// production deployment (loopback outbound URLs, compressed retry
// schedules, crash injection) exist only when Enabled is true: a
// production binary cannot be configured into them.
package testbuild
