// Package mail sends the service's messages to people: for now the
// invitation to join an organization. Sender is the contract; LogSender is
// the development implementation that only logs that a message was due.
// An SMTP sender and a file outbox (dev mode, under .ocv/mail/) come later.
//
// Trust level: untrusted (proxy side). Messages may carry one-time tokens;
// no implementation ever logs them.
package mail
