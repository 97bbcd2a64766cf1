// Package mail sends the service's messages to people: for now the
// invitation to join an organization. Sender is the contract; SMTPSender
// delivers through an SMTP relay (STARTTLS required unless explicitly
// allowed off for a loopback relay), FileOutbox writes one .eml file per
// message for development (under .ocv/mail/), and LogSender only logs that
// a message was due.
//
// Trust level: untrusted (proxy side). Messages carry one-time tokens in
// their body; no implementation ever logs them or puts them in an error,
// and the SMTP password never reaches a log or an error either.
package mail
