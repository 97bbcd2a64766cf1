// Package proxy is OCV's untrusted edge: the HTTPS server, the middleware
// chain in the spec's request processing order, and the route table that
// says for every route who may call it. It never holds a key-encryption key,
// a data key at rest or a signing key: every sensitive operation goes to the
// enclave over the attested channel.
//
// Trust level: untrusted.
package proxy
