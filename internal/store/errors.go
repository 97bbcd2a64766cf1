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
	// ErrLastOwner: the change would leave an organization without an owner.
	ErrLastOwner = errors.New("last owner")
)

// Sentinels of the policy store.
var (
	// ErrUnknownPrincipal: a policy names no member or active agent of the organization.
	ErrUnknownPrincipal = errors.New("unknown policy principal")
	// ErrLimit: a per-resource cap is reached.
	ErrLimit = errors.New("limit reached")
)

// LastOwnerError says which organization a change would leave without an
// owner. It unwraps to ErrLastOwner.
type LastOwnerError struct {
	OrgID string
}

// Error names the organization (an id, no personal data).
func (e *LastOwnerError) Error() string { return "last owner of organization " + e.OrgID }

// Unwrap returns ErrLastOwner.
func (e *LastOwnerError) Unwrap() error { return ErrLastOwner }

// NotFoundError is a not-found that names the resource that is missing
// ("vault", "agent"), never an id or a value. It matches ErrNotFound with
// errors.Is; the proxy answers it with a 404 naming the resource.
type NotFoundError struct {
	Resource string
}

// NotFound returns the not-found error of resource.
func NotFound(resource string) error { return &NotFoundError{Resource: resource} }

// Error names the resource.
func (e *NotFoundError) Error() string { return e.Resource + " not found" }

// Is reports whether target is ErrNotFound.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }
