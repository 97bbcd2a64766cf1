package client

import "errors"

// ErrInvalidConfig is a Config that New refuses; the message names the
// field.
var ErrInvalidConfig = errors.New("invalid enclave client config")

// errProtocol marks a response that breaks the protocol (wrong MAC, wrong
// request id, undecodable body): the connection is dropped.
var errProtocol = errors.New("enclave protocol violation")

// stageError says where setting up a connection failed; its text is what
// State.Reason shows.
type stageError struct {
	stage string // "dial", "handshake", "attestation"
	err   error
}

func (e *stageError) Error() string { return e.stage + ": " + e.err.Error() }
func (e *stageError) Unwrap() error { return e.err }

// brokenError wraps an error after which a connection cannot be used
// again: an I/O failure, a timeout mid-exchange or a protocol violation.
type brokenError struct{ err error }

func (e *brokenError) Error() string { return e.err.Error() }
func (e *brokenError) Unwrap() error { return e.err }
