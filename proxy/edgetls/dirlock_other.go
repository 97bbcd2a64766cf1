//go:build !(linux || darwin || freebsd || openbsd || netbsd || dragonfly)

package edgetls

// lockDir is a no-op where flock is unavailable: DevTLS still serialises
// callers within the process (devMu), and temp + rename keeps each file
// whole, but two processes creating a CA at the same instant may race.
func lockDir(string) (func(), error) { return func() {}, nil }
