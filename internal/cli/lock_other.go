//go:build !unix

package cli

// lockFile is a no-op where flock does not exist: concurrent refreshes are
// then the caller's concern.
func lockFile(string) (func(), error) { return func() {}, nil }
