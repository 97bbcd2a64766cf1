package mail

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/smtp"
	"time"
)

// SMTPConfig configures SMTPSender.
type SMTPConfig struct {
	Addr     string // host:port
	Username string // empty: no authentication
	Password string // secret: never logged, never in an error
	From     string
	// Insecure allows a server that offers no STARTTLS (plain text); only
	// for a loopback relay. With STARTTLS offered it is always used.
	Insecure bool
	// TLSConfig overrides the STARTTLS client configuration (tests); its
	// ServerName defaults to Addr's host.
	TLSConfig *tls.Config
	// Timeout bounds one delivery when ctx has no earlier deadline; default 30s.
	Timeout time.Duration
	// Dial connects to Addr. The proxy passes its outbound policy's
	// (egress.Policy.DialContext), which refuses loopback, private and
	// metadata addresses unless the operator allowlists them; nil dials
	// directly (tests).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// SMTPSender delivers messages to one SMTP relay, a new connection per
// message, with STARTTLS required unless Insecure.
type SMTPSender struct {
	cfg  SMTPConfig
	host string
}

// NewSMTPSender checks cfg and returns a sender.
func NewSMTPSender(cfg SMTPConfig) (*SMTPSender, error) {
	host, _, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("parsing smtp address: %w", err)
	}
	if _, err := Compose(cfg.From, Invite{Email: "check@example.com"}, time.Now()); err != nil {
		return nil, err
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	return &SMTPSender{cfg: cfg, host: host}, nil
}

// SendInvite delivers the invitation.
func (s *SMTPSender) SendInvite(ctx context.Context, inv Invite) error {
	msg, err := Compose(s.cfg.From, inv, time.Now())
	if err != nil {
		return err
	}
	return s.send(ctx, inv.Email, msg)
}

func (s *SMTPSender) send(ctx context.Context, to string, msg []byte) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	dial := s.cfg.Dial
	if dial == nil {
		var d net.Dialer
		dial = d.DialContext
	}
	conn, err := dial(ctx, "tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("connecting to smtp server: %w", err)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	c, err := smtp.NewClient(conn, s.host)
	if err != nil {
		_ = conn.Close()
		return fmt.Errorf("greeting smtp server: %w", err)
	}
	defer c.Close() //nolint:errcheck // after Quit a no-op
	if ok, _ := c.Extension("STARTTLS"); ok {
		tc := &tls.Config{ServerName: s.host, MinVersion: tls.VersionTLS12}
		if s.cfg.TLSConfig != nil {
			tc = s.cfg.TLSConfig.Clone()
			if tc.ServerName == "" {
				tc.ServerName = s.host
			}
		}
		if err := c.StartTLS(tc); err != nil {
			return fmt.Errorf("starting tls with smtp server: %w", err)
		}
	} else if !s.cfg.Insecure {
		return fmt.Errorf("sending mail: %w", ErrNoSTARTTLS)
	}
	if s.cfg.Username != "" {
		// PlainAuth itself refuses to send credentials without TLS except
		// to localhost.
		if err := c.Auth(smtp.PlainAuth("", s.cfg.Username, s.cfg.Password, s.host)); err != nil {
			return fmt.Errorf("authenticating to smtp server: %w", err)
		}
	}
	if err := c.Mail(mustAddress(s.cfg.From)); err != nil {
		return fmt.Errorf("sending mail from: %w", err)
	}
	if err := c.Rcpt(mustAddress(to)); err != nil {
		return fmt.Errorf("sending rcpt to: %w", err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("sending data: %w", err)
	}
	if _, err := w.Write(msg); err != nil {
		return fmt.Errorf("sending data: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("sending data: %w", err)
	}
	if err := c.Quit(); err != nil {
		return fmt.Errorf("closing smtp session: %w", err)
	}
	return nil
}

var _ Sender = (*SMTPSender)(nil)
