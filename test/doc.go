// Package test holds OCV's end-to-end tests: each boots ocv-enclave and
// ocv-proxy against real PostgreSQL and SoftHSM2 (see test/stack) and talks
// HTTPS to the proxy as a client would.
package test
