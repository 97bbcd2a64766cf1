// Package problem renders every OCV error as RFC 9457 problem details
// (`type`, `title`, `status`, `detail`, content type application/problem+json)
// and maps errors to them in one place, FromError.
//
// Trust level: untrusted (proxy side).
package problem
