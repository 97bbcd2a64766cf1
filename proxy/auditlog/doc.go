// Package auditlog records every request as an audit event before its
// response leaves (fail closed), groups the inserts of concurrent requests
// into shared commits, and seals each organization's events into a hash
// chain in the background, with chain heads signed by the enclave.
//
// Trust level: untrusted (proxy side).
package auditlog
