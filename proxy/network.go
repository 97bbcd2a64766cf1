package proxy

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	netmail "net/mail"
	"net/netip"
	"os"
	"path/filepath"
	"strings"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/mail"
)

// validateNetwork checks trusted_proxies and the SMTP settings.
func (c *Config) validateNetwork() []error {
	var errs []error
	bad := func(field, why string) { errs = append(errs, fmt.Errorf("config %s: %s", field, why)) }
	if _, err := parseTrustedProxies(c.TrustedProxies); err != nil {
		bad("trusted_proxies", "each entry must be an IPv4 or IPv6 CIDR or address")
	}
	if c.SMTPAddr == "" {
		return errs
	}
	host, _, err := net.SplitHostPort(c.SMTPAddr)
	if err != nil {
		bad("smtp_addr", "must be host:port")
	}
	if a, err := netmail.ParseAddress(c.SMTPFrom); err != nil || a.Address == "" {
		bad("smtp_from", "is required with smtp_addr and must be an email address")
	}
	if c.SMTPInsecure && !isLoopbackHost(host) {
		bad("smtp_insecure", "is allowed only for a loopback smtp_addr (localhost, 127.0.0.0/8, ::1)")
	}
	if c.SMTPUsername != "" && c.SMTPPasswordFile == "" {
		bad("smtp_password_file", "is required with smtp_username")
	}
	return errs
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

// NewMailer chooses the mail sender: SMTP when smtp_addr is set, else the
// file outbox under data_dir/mail in dev TLS mode, else log-only. The SMTP
// password is read from its file here and never logged.
func NewMailer(cfg Config, log *slog.Logger) (mail.Sender, error) {
	switch {
	case cfg.SMTPAddr != "":
		var password string
		if cfg.SMTPPasswordFile != "" {
			b, err := os.ReadFile(cfg.SMTPPasswordFile)
			if err != nil {
				return nil, fmt.Errorf("reading smtp password file: %w", err)
			}
			password = strings.TrimRight(string(b), "\r\n")
		}
		// The relay's own port is admitted; its address must still pass
		// the outbound policy (or be in egress_allow as CIDR:port).
		out, err := cfg.Egress().WithHostPort(cfg.SMTPAddr)
		if err != nil {
			return nil, fmt.Errorf("configuring smtp: %w", err)
		}
		s, err := mail.NewSMTPSender(mail.SMTPConfig{Addr: cfg.SMTPAddr, Username: cfg.SMTPUsername, Password: password,
			From: cfg.SMTPFrom, Insecure: cfg.SMTPInsecure, Dial: out.DialContext})
		if err != nil {
			return nil, fmt.Errorf("configuring smtp: %w", err)
		}
		log.Info("mail: smtp", "addr", cfg.SMTPAddr, "starttls_required", !cfg.SMTPInsecure)
		return s, nil
	case cfg.TLSMode == "dev":
		from := cfg.SMTPFrom
		if from == "" {
			from = "OCV <ocv@localhost>"
		}
		o, err := mail.NewFileOutbox(filepath.Join(cfg.DataDir, "mail"), from, log)
		if err != nil {
			return nil, err
		}
		log.Info("mail: dev file outbox (messages hold invitation tokens)", "dir", o.Dir())
		return o, nil
	default:
		log.Warn("mail: no smtp_addr; invitations are only logged, not sent")
		return mail.NewLogSender(log), nil
	}
}

// KeepIPRules drops cached IP rules as any replica announces a change,
// until ctx ends; whenever the listener (re)connects the whole cache is
// dropped, since notifications may have been missed meanwhile. It returns
// nil.
func KeepIPRules(ctx context.Context, db *store.Store, cache *IPRuleCache, log *slog.Logger) error {
	listenLoop(ctx, log, "ip rule", func() error { return db.Listen(ctx, store.IPRulesChannel, cache.Flush, cache.Invalidate) }, cache.Flush)
	return nil
}
