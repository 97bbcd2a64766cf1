//go:build ocvtest

package testbuild

// Enabled is true in builds made with -tags ocvtest (the end-to-end
// tests' binaries).
const Enabled = true
