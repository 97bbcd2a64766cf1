package mail

import (
	"context"
	"log/slog"
	"time"
)

// Invite is an invitation to join an organization.
type Invite struct {
	ID        string
	OrgID     string
	Email     string
	Role      string
	InvitedBy string
	ExpiresAt time.Time
	// Token is the one-time invitation token for the invitee. It is a
	// credential: implementations put it only in the message itself and
	// never in a log line or an error.
	Token string
}

// Sender delivers messages. Implementations are safe for concurrent use,
// honour ctx, and return an error only when they could not accept the
// message (the caller's state change stands either way).
type Sender interface {
	SendInvite(ctx context.Context, inv Invite) error
}

// LogSender logs each message's envelope (id, organization, address, role)
// and delivers nothing; for development and tests.
type LogSender struct {
	log *slog.Logger
}

// NewLogSender returns a LogSender writing to log.
func NewLogSender(log *slog.Logger) *LogSender { return &LogSender{log: log} }

// SendInvite logs that an invitation is due, never its token.
func (s *LogSender) SendInvite(ctx context.Context, inv Invite) error {
	s.log.LogAttrs(ctx, slog.LevelInfo, "invitation not emailed (log-only mail sender)",
		slog.String("invite_id", inv.ID), slog.String("org_id", inv.OrgID), slog.String("email", inv.Email),
		slog.String("role", inv.Role), slog.Time("expires_at", inv.ExpiresAt))
	return nil
}

var _ Sender = (*LogSender)(nil)
