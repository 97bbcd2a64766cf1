package mail

import "errors"

// Sentinel errors of the senders.
var (
	// ErrBadAddress: a sender or recipient address cannot be used.
	ErrBadAddress = errors.New("unusable mail address")
	// ErrNoSTARTTLS: the SMTP server does not offer STARTTLS and plain
	// text was not allowed.
	ErrNoSTARTTLS = errors.New("smtp server does not offer STARTTLS")
)
