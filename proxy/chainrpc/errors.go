package chainrpc

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error a Client returns wraps exactly one of them (or
// a context error when the caller's context ended).
var (
	// ErrInvalidURL means the RPC URL could not be used (bad syntax or a
	// scheme other than http, https, ws, wss).
	ErrInvalidURL = errors.New("invalid rpc url")
	// ErrClosed means the Pool or its client was closed.
	ErrClosed = errors.New("rpc client closed")
	// ErrUnavailable means the node could not be reached or answered with a
	// transport-level failure (connection refused, HTTP 5xx, ...).
	ErrUnavailable = errors.New("rpc node unavailable")
	// ErrTimeout means one attempt of a call hit its per-call timeout.
	ErrTimeout = errors.New("rpc call timed out")
	// ErrNode means the node answered with a JSON-RPC error.
	ErrNode = errors.New("rpc node error")
	// ErrMethodNotFound means the node does not offer the JSON-RPC method.
	ErrMethodNotFound = errors.New("rpc method not available")
	// ErrInvalidResponse means the node's answer was malformed or absurd.
	ErrInvalidResponse = errors.New("invalid rpc response")
	// ErrInvalidArgument means the caller passed an unusable argument.
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrReverted means the EVM execution reverted; see RevertError.
	ErrReverted = errors.New("execution reverted")
	// ErrNonceTooLow means the node refused a transaction because its nonce
	// was already used by a different transaction.
	ErrNonceTooLow = errors.New("nonce too low")
	// ErrRejected means the node refused a transaction for another reason
	// (underpriced, insufficient funds, fee cap below base fee, ...).
	ErrRejected = errors.New("transaction rejected")
)

// Error is a failed node call. It never contains the RPC URL: Message is
// scrubbed of the URL and of every part of it.
type Error struct {
	// Method is the JSON-RPC method, e.g. "eth_call".
	Method string
	// Code is the JSON-RPC error code, or the HTTP status for ErrUnavailable
	// from an HTTP error, or 0.
	Code int
	// Message is the scrubbed error text from the node or the transport.
	Message string

	kind  error // one of the sentinels above
	cause error // a context error, kept for errors.Is; never holds the URL
	retry bool
}

// Error implements error.
func (e *Error) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("chainrpc: %s: %v", e.Method, e.kind)
	}
	return fmt.Sprintf("chainrpc: %s: %v: %s", e.Method, e.kind, e.Message)
}

// Unwrap returns the sentinel and, for a cancelled or expired context, the
// context error.
func (e *Error) Unwrap() []error {
	if e.cause != nil {
		return []error{e.kind, e.cause}
	}
	return []error{e.kind}
}

// RevertError is an EVM revert. Reason is the decoded Error(string) message,
// a description of a Panic(uint256) code, or empty for custom errors, whose
// raw ABI encoding stays in Data.
type RevertError struct {
	Reason string
	Data   []byte
}

// Error implements error.
func (e *RevertError) Error() string {
	switch {
	case e.Reason != "":
		return "execution reverted: " + e.Reason
	case len(e.Data) >= 4:
		return fmt.Sprintf("execution reverted (custom error 0x%x)", e.Data[:4])
	default:
		return "execution reverted"
	}
}

// Unwrap returns ErrReverted.
func (e *RevertError) Unwrap() error { return ErrReverted }
