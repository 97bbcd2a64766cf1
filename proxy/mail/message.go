package mail

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"mime"
	"mime/quotedprintable"
	netmail "net/mail"
	"strings"
	"time"
)

// Compose renders inv as an RFC 5322 message from from: plain text,
// quoted-printable, with the invitation token in the body (the message is
// how the invitee receives it). It refuses addresses that would not fit a
// header safely.
func Compose(from string, inv Invite, now time.Time) ([]byte, error) {
	fromAddr, err := netmail.ParseAddress(from)
	if err != nil {
		return nil, fmt.Errorf("parsing sender address: %w", ErrBadAddress)
	}
	toAddr, err := netmail.ParseAddress(inv.Email)
	if err != nil || strings.ContainsAny(inv.Email, "\r\n") {
		return nil, fmt.Errorf("parsing recipient address: %w", ErrBadAddress)
	}
	id := make([]byte, 12)
	_, _ = rand.Read(id)
	domain := "ocv.invalid"
	if _, d, ok := strings.Cut(fromAddr.Address, "@"); ok {
		domain = d
	}
	var b bytes.Buffer
	header := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	header("From", fromAddr.String())
	header("To", toAddr.String())
	header("Subject", mime.QEncoding.Encode("utf-8", "You are invited to an Open Custody Vault organization"))
	header("Date", now.UTC().Format(time.RFC1123Z))
	header("Message-ID", "<"+hex.EncodeToString(id)+"@"+domain+">")
	header("MIME-Version", "1.0")
	header("Content-Type", `text/plain; charset="utf-8"`)
	header("Content-Transfer-Encoding", "quoted-printable")
	b.WriteString("\r\n")
	qp := quotedprintable.NewWriter(&b)
	body := fmt.Sprintf("You have been invited to join an organization on Open Custody Vault.\r\n\r\n"+
		"Organization: %s\r\nRole: %s\r\nInvitation: %s\r\nValid until: %s\r\n\r\n"+
		"Your one-time invitation token:\r\n\r\n%s\r\n\r\n"+
		"Keep it private: anyone holding it can accept the invitation. If you did not expect this message, ignore it.\r\n",
		inv.OrgID, inv.Role, inv.ID, inv.ExpiresAt.UTC().Format(time.RFC3339), inv.Token)
	if _, err := qp.Write([]byte(body)); err != nil {
		return nil, fmt.Errorf("encoding message body: %w", err)
	}
	if err := qp.Close(); err != nil {
		return nil, fmt.Errorf("encoding message body: %w", err)
	}
	return b.Bytes(), nil
}

// mustAddress is the bare address of an already checked address.
func mustAddress(s string) string {
	a, err := netmail.ParseAddress(s)
	if err != nil {
		return s
	}
	return a.Address
}
