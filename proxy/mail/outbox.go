package mail

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"
)

// FileOutbox is the development sender: each message becomes one .eml
// file in a directory only the service's user can read (0700, files 0600).
// The files hold the invitation tokens; they are for local development.
type FileOutbox struct {
	dir  string
	from string
	log  *slog.Logger
}

// NewFileOutbox creates dir (0700) when missing and returns an outbox
// writing there with sender address from. Each message's envelope (id,
// organization, address, file name; never the token) is logged to log
// when it is not nil.
func NewFileOutbox(dir, from string, log *slog.Logger) (*FileOutbox, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating mail outbox: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, fmt.Errorf("restricting mail outbox: %w", err)
	}
	return &FileOutbox{dir: dir, from: from, log: log}, nil
}

// Dir is the outbox directory.
func (o *FileOutbox) Dir() string { return o.dir }

// SendInvite writes the invitation as <time>-<invite id>.eml, atomically
// (a reader never sees a partial file).
func (o *FileOutbox) SendInvite(ctx context.Context, inv Invite) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := time.Now()
	msg, err := Compose(o.from, inv, now)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(o.dir, ".outgoing-*")
	if err != nil {
		return fmt.Errorf("writing mail file: %w", err)
	}
	defer os.Remove(tmp.Name()) //nolint:errcheck // gone after the rename
	if err := tmp.Chmod(0o600); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("writing mail file: %w", err)
	}
	if _, err := tmp.Write(msg); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("writing mail file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing mail file: %w", err)
	}
	name := now.UTC().Format("20060102T150405.000000000Z") + "-" + filepath.Base(inv.ID) + ".eml"
	if err := os.Rename(tmp.Name(), filepath.Join(o.dir, name)); err != nil {
		return fmt.Errorf("writing mail file: %w", err)
	}
	if o.log != nil {
		o.log.LogAttrs(ctx, slog.LevelInfo, "invitation written to the dev mail outbox",
			slog.String("invite_id", inv.ID), slog.String("org_id", inv.OrgID), slog.String("email", inv.Email),
			slog.String("file", name))
	}
	return nil
}

var _ Sender = (*FileOutbox)(nil)
