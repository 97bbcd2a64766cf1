package store

import "errors"

// Sentinel errors returned (wrapped) by the repositories.
var (
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("conflict")
)
