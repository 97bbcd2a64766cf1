package webhooks

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// Client limits.
const (
	// ConnectTimeout bounds DNS resolution plus the TCP connect.
	ConnectTimeout = 5 * time.Second
	// RequestTimeout bounds a whole delivery: connect, TLS, request,
	// response headers and the bounded body read.
	RequestTimeout = 10 * time.Second
	// MaxResponseBody is how much of a receiver's response body is read
	// (and discarded) before the connection is closed.
	MaxResponseBody = 64 << 10
)

// NewClient returns the HTTP client for webhook deliveries. It never uses a
// proxy from the environment, never follows a redirect (the 3xx response is
// returned and counts as a failed attempt), does not keep connections alive,
// and refuses at connect time any resolved address that checkAddr refuses:
// the dialer's Control hook sees the exact IP being connected to, after DNS,
// so a name that passed ValidateURL but resolves to a private address (DNS
// rebinding) is refused with an error wrapping ErrForbiddenAddress.
func NewClient(opts Options) *http.Client {
	d := &net.Dialer{
		Timeout:   ConnectTimeout,
		KeepAlive: -1,
		Control:   dialControl(opts.AllowLoopback),
	}
	tr := &http.Transport{
		Proxy:                  nil, // never HTTP(S)_PROXY: the check must judge the real peer
		DialContext:            dialContext(d, opts.Resolver),
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    ConnectTimeout,
		ResponseHeaderTimeout:  RequestTimeout,
		MaxResponseHeaderBytes: 16 << 10,
		DisableKeepAlives:      true,
		ForceAttemptHTTP2:      true,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   RequestTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			// A redirect could point anywhere, including places
			// ValidateURL would refuse; the receiver gets one request.
			return http.ErrUseLastResponse
		},
	}
}

// dialControl re-checks the address the socket is about to connect to.
func dialControl(allowLoopback bool) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		if network != "tcp4" && network != "tcp6" {
			return refuse(ErrForbiddenAddress, "network "+network)
		}
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return refuse(ErrInvalidHost, "unparsable peer address")
		}
		return checkAddr(ap.Addr(), allowLoopback)
	}
}

// dialContext resolves through r when it is set; every connection still goes
// through d, whose Control hook judges the resolved address.
func dialContext(d *net.Dialer, r Resolver) func(ctx context.Context, network, addr string) (net.Conn, error) {
	if r == nil {
		return d.DialContext
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, fmt.Errorf("splitting dial address: %w", err)
		}
		if _, err := netip.ParseAddr(host); err == nil {
			return d.DialContext(ctx, network, addr)
		}
		rctx, cancel := context.WithTimeout(ctx, ConnectTimeout)
		defer cancel()
		ips, err := r.LookupNetIP(rctx, "ip", host)
		if err != nil {
			return nil, fmt.Errorf("resolving %s: %w", host, err)
		}
		if len(ips) == 0 {
			return nil, fmt.Errorf("resolving %s: no addresses", host)
		}
		var errs []error
		for _, ip := range ips {
			c, err := d.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
			if err == nil {
				return c, nil
			}
			errs = append(errs, err)
		}
		return nil, fmt.Errorf("dialing %s: %w", host, errors.Join(errs...))
	}
}
