// Package keyvaulttest is the conformance suite every keyvault.KeyStore
// passes: each implementation runs Exercise from a one-line test.
//
// Trust level: test only.
package keyvaulttest
