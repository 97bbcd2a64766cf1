//go:build !ocvtest

package testbuild

// Enabled is false in production builds.
const Enabled = false
