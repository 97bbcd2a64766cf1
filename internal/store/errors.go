package store

import "errors"

// Sentinel errors returned (wrapped) by the repositories.
var (
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("conflict")
	// ErrLocked: the account is locked after too many failed sign-ins.
	ErrLocked = errors.New("account locked")
	// ErrReused: a spent single-use token was presented again.
	ErrReused = errors.New("token already used")
)
