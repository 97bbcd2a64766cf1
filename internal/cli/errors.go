package cli

import (
	"errors"
	"fmt"
	"net/http"
)

// ErrUsage marks a command line that could not be understood (exit code 2).
var ErrUsage = errors.New("usage")

// ErrNotLoggedIn is returned when no token is configured or cached for the URL.
var ErrNotLoggedIn = errors.New("not logged in")

// ErrSessionExpired is returned when the cached access token expired and
// cannot be refreshed.
var ErrSessionExpired = errors.New("the session expired: run ocv login again")

// ErrInsecureCredentials is returned when the credentials file is readable
// or writable by anyone but its owner.
var ErrInsecureCredentials = errors.New("credentials file permissions are too open")

// ErrVaultNotFound is returned when no vault has the name given to --vault.
var ErrVaultNotFound = errors.New("vault not found")

// ErrEnvConflict is returned by ocv run when two secrets map to one
// environment variable name.
var ErrEnvConflict = errors.New("two secrets map to the same environment variable")

// ProblemError is an RFC 9457 problem answered by the server.
type ProblemError struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
}

// Error renders the problem as "<title>: <detail> (<type>, HTTP <status>)".
func (p *ProblemError) Error() string {
	title, typ, detail := p.Title, p.Type, p.Detail
	if title == "" {
		title = http.StatusText(p.Status)
	}
	if typ == "" {
		typ = "about:blank"
	}
	if detail == "" {
		detail = "no detail given"
	}
	return fmt.Sprintf("%s: %s (%s, HTTP %d)", clean(title), clean(detail), clean(typ), p.Status)
}

// exitCodeError carries the exit code of ocv run's child: Run returns it
// without printing anything.
type exitCodeError struct{ code int }

func (e *exitCodeError) Error() string { return fmt.Sprintf("child exited with code %d", e.code) }

// ErrSecretNotFound means no secret has the path given to a command.
var ErrSecretNotFound = errors.New("secret not found")
