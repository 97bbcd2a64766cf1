// Package handlers implements OCV's HTTP handlers, one file per resource
// group. Handlers depend on interfaces (storage, the enclave channel, token
// minting) and return errors that api/problem turns into problem details.
//
// Trust level: untrusted (proxy side).
package handlers
