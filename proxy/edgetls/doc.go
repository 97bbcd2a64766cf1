// Package edgetls provides the TLS configuration of the proxy's public
// listener.
//
// Trust level: untrusted (proxy side). Nothing here holds vault key
// material: the dev CA and the ACME certificates protect only the transport
// between clients and the proxy.
//
// Two modes exist:
//
//   - DevTLS loads or creates a local development CA and a server leaf on
//     disk, for the simulator and for tests.
//   - ACME manages certificates for configured domains through certmagic,
//     storing them in PostgreSQL with PGStorage so that any number of proxy
//     replicas share one set of certificates, ACME accounts and locks.
package edgetls
