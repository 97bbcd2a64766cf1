package mail

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"io"
	"math/big"
	"mime/quotedprintable"
	"net"
	netmail "net/mail"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/egress"
)

// smtpServer is a tiny in-process SMTP server: enough of RFC 5321 for
// net/smtp (EHLO, STARTTLS, AUTH PLAIN, MAIL, RCPT, DATA, QUIT).
type smtpServer struct {
	ln       net.Listener
	tls      *tls.Config // nil: no STARTTLS offered
	authCode int         // answer to AUTH (235 accepts)

	mu       sync.Mutex
	auth     string
	from, to string
	data     []byte
	usedTLS  bool
}

func startSMTP(t *testing.T, tc *tls.Config, authCode int) *smtpServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &smtpServer{ln: ln, tls: tc, authCode: authCode}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	return s
}

func (s *smtpServer) serve(conn net.Conn) {
	defer conn.Close()
	tp := textproto.NewConn(conn)
	secure := false
	_ = tp.PrintfLine("220 localhost ESMTP test")
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(line, " ")
		switch strings.ToUpper(verb) {
		case "EHLO", "HELO":
			_ = tp.PrintfLine("250-localhost")
			if s.tls != nil && !secure {
				_ = tp.PrintfLine("250-STARTTLS")
			}
			_ = tp.PrintfLine("250 AUTH PLAIN")
		case "STARTTLS":
			_ = tp.PrintfLine("220 go ahead")
			tc := tls.Server(conn, s.tls)
			if tc.Handshake() != nil {
				return
			}
			conn, tp, secure = tc, textproto.NewConn(tc), true
			s.mu.Lock()
			s.usedTLS = true
			s.mu.Unlock()
		case "AUTH":
			_, b64, _ := strings.Cut(arg, " ")
			dec, _ := base64.StdEncoding.DecodeString(b64)
			s.mu.Lock()
			s.auth = string(dec)
			s.mu.Unlock()
			_ = tp.PrintfLine("%d auth answer", s.authCode)
		case "MAIL":
			s.mu.Lock()
			s.from = arg
			s.mu.Unlock()
			_ = tp.PrintfLine("250 ok")
		case "RCPT":
			s.mu.Lock()
			s.to = arg
			s.mu.Unlock()
			_ = tp.PrintfLine("250 ok")
		case "DATA":
			_ = tp.PrintfLine("354 send it")
			b, err := tp.ReadDotBytes()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.data = b
			s.mu.Unlock()
			_ = tp.PrintfLine("250 queued")
		case "QUIT":
			_ = tp.PrintfLine("221 bye")
			return
		default:
			_ = tp.PrintfLine("502 not implemented")
		}
	}
}

func testTLS(t *testing.T) (server, client *tls.Config) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}},
		&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
}

const (
	canaryToken    = "ocvi_canary-token-in-the-body-only-0000000000000"
	canaryPassword = "smtp-canary-password-Zx81"
)

func testInvite() Invite {
	return Invite{ID: "0191d1a8-0000-7000-8000-000000000001", OrgID: "org-1", Email: "invitee@example.com", Role: "admin",
		InvitedBy: "u-1", ExpiresAt: time.Now().Add(time.Hour), Token: canaryToken}
}

// bodyOf decodes a composed message's quoted-printable body.
func bodyOf(t *testing.T, raw []byte) (*netmail.Message, string) {
	t.Helper()
	m, err := netmail.ReadMessage(bufio.NewReader(strings.NewReader(string(raw))))
	require.NoError(t, err)
	b, err := io.ReadAll(quotedprintable.NewReader(m.Body))
	require.NoError(t, err)
	return m, string(b)
}

func TestSMTPSender(t *testing.T) {
	serverTLS, clientTLS := testTLS(t)
	tests := map[string]struct {
		tls       bool
		authCode  int
		insecure  bool
		username  string
		wantTLS   bool
		wantErr   error
		wantAnErr bool
	}{
		"starttls and auth":     {tls: true, authCode: 235, username: "mailer", wantTLS: true},
		"no starttls refused":   {tls: false, authCode: 235, wantErr: ErrNoSTARTTLS},
		"insecure loopback":     {tls: false, authCode: 235, insecure: true, username: "mailer"},
		"auth rejected":         {tls: true, authCode: 535, username: "mailer", wantAnErr: true},
		"starttls when offered": {tls: true, authCode: 235, insecure: true, wantTLS: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var stc *tls.Config
			if tc.tls {
				stc = serverTLS
			}
			srv := startSMTP(t, stc, tc.authCode)
			s, err := NewSMTPSender(SMTPConfig{Addr: srv.ln.Addr().String(), Username: tc.username, Password: canaryPassword,
				From: "OCV <vault@example.com>", Insecure: tc.insecure, TLSConfig: clientTLS})
			require.NoError(t, err)
			err = s.SendInvite(context.Background(), testInvite())
			srv.mu.Lock()
			defer srv.mu.Unlock()
			if tc.wantErr != nil || tc.wantAnErr {
				require.Error(t, err)
				if tc.wantErr != nil {
					require.ErrorIs(t, err, tc.wantErr)
				}
				require.NotContains(t, err.Error(), "canary", "an error names no secret")
				require.Empty(t, srv.data, "nothing delivered")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.wantTLS, srv.usedTLS)
			if tc.username != "" {
				require.True(t, srv.auth == "\x00mailer\x00"+canaryPassword, "AUTH PLAIN carried the configured credentials")
			}
			require.Equal(t, "FROM:<vault@example.com>", srv.from)
			require.Equal(t, "TO:<invitee@example.com>", srv.to)
			m, body := bodyOf(t, srv.data)
			require.Equal(t, "invitee@example.com", mustAddress(m.Header.Get("To")))
			require.True(t, strings.Contains(body, canaryToken), "the token is in the body")
			require.Contains(t, body, "Role: admin")
		})
	}
}

func TestNewSMTPSenderChecksConfig(t *testing.T) {
	_, err := NewSMTPSender(SMTPConfig{Addr: "no-port", From: "a@example.com"})
	require.Error(t, err)
	_, err = NewSMTPSender(SMTPConfig{Addr: "127.0.0.1:25", From: "not an address"})
	require.ErrorIs(t, err, ErrBadAddress)
}

func TestComposeRefusesHeaderInjection(t *testing.T) {
	inv := testInvite()
	inv.Email = "a@example.com\r\nBcc: x@example.com"
	_, err := Compose("vault@example.com", inv, time.Now())
	require.ErrorIs(t, err, ErrBadAddress)
}

func TestSMTPSenderDialsThroughTheOutboundPolicy(t *testing.T) {
	srv := startSMTP(t, nil, 235)
	addr := srv.ln.Addr().String()
	_, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	strict, err := egress.New(egress.Config{}).WithHostPort(addr)
	require.NoError(t, err)
	operator := egress.New(egress.Config{Allow: mustAllowlist(t, "127.0.0.1/32:"+port)})
	tests := map[string]struct {
		policy  *egress.Policy
		wantErr error
	}{
		"fail loopback relay by default": {policy: strict, wantErr: egress.ErrForbiddenAddress},
		"ok relay the operator listed":   {policy: operator},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s, err := NewSMTPSender(SMTPConfig{Addr: addr, From: "OCV <vault@example.com>", Insecure: true, Dial: tc.policy.DialContext})
			require.NoError(t, err)
			err = s.SendInvite(context.Background(), testInvite())
			srv.mu.Lock()
			defer srv.mu.Unlock()
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				require.Empty(t, srv.data, "nothing delivered")
				return
			}
			require.NoError(t, err)
			require.NotEmpty(t, srv.data)
		})
	}
}

func mustAllowlist(t *testing.T, entries ...string) egress.Allowlist {
	t.Helper()
	l, err := egress.ParseAllowlist(entries)
	require.NoError(t, err)
	return l
}
