// Package problem is the error vocabulary of the HTTP contract: RFC 9457
// problem details (`type`, `title`, `status`, `detail`, content type
// application/problem+json) and the problem types of api/openapi.yaml. It is
// a leaf: the standard library only. Which error becomes which problem is
// decided in one place on the proxy side, proxy/httperr.
//
// Trust level: shared contract (untrusted side).
package problem
