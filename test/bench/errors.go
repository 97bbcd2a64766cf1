package main

import "errors"

// Sentinel errors of the load generator.
var (
	// ErrRemoteURL means the target is not a loopback address and
	// -allow-remote was not given.
	ErrRemoteURL = errors.New("refusing a non-loopback URL without -allow-remote")
	// ErrInvalidFlag means a flag value is out of range or malformed.
	ErrInvalidFlag = errors.New("invalid flag")
	// ErrUnexpectedStatus means a setup call answered an unexpected HTTP status.
	ErrUnexpectedStatus = errors.New("unexpected HTTP status")
	// ErrHSM means an in-process HSM operation (the hsmraw scenario, or
	// setting up its private SoftHSM2 token) failed.
	ErrHSM = errors.New("in-process HSM operation failed")
	// ErrBadSignature means the HSM answered a signature of the wrong size.
	ErrBadSignature = errors.New("HSM signature has the wrong size")
)
