// Package h2flood is an HTTP/2 "rapid reset" client for tests and the load
// generator: on one TLS connection (ALPN h2) it opens a stream with a GET
// and resets it at once, over and over, and reports how the server ended
// the connection. It is test code: it talks only to the stack under test.
//
// Trust level: test code (never linked into a binary).
package h2flood
