package egress

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"syscall"
	"time"
)

// ConnectTimeout bounds name resolution plus one TCP connect.
const ConnectTimeout = 5 * time.Second

// DialContext connects to address ("host:port") under the policy: a name
// is judged (unless an allowlist entry names it), resolved, and every
// resolved address is judged before it is dialled; the socket's Control
// hook judges the exact peer once more before connect(2). network must be
// tcp, tcp4 or tcp6. Refusals wrap ErrRefused; when every address is
// refused nothing is dialled.
func (p *Policy) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return nil, refuse(ErrForbiddenAddress, "network "+network)
	}
	host, ps, err := net.SplitHostPort(address)
	if err != nil {
		return nil, refuse(ErrInvalidURL, "want host:port")
	}
	n, err := strconv.Atoi(ps)
	if err != nil || n < 1 || n > 65535 {
		return nil, refuse(ErrInvalidURL, "port")
	}
	port := uint16(n)
	kind, name, lit, err := parseHost(host)
	if err != nil {
		return nil, err
	}
	var ips []netip.Addr
	listed := false
	if kind == hostAddr {
		ips, listed = []netip.Addr{lit}, p.cfg.Allow.hostAllows(lit.Unmap().String(), port)
	} else {
		listed = p.cfg.Allow.hostAllows(name, port)
		if !listed {
			if err := checkName(name, p.cfg.AllowLoopback); err != nil {
				return nil, err
			}
		}
		if ips, err = p.resolve(ctx, network, name); err != nil {
			return nil, err
		}
	}
	d := &net.Dialer{Timeout: ConnectTimeout, KeepAlive: -1, Control: p.control(port, listed)}
	var errs []error
	for _, ip := range ips {
		ip = ip.Unmap()
		if network == "tcp4" && !ip.Is4() || network == "tcp6" && ip.Is4() {
			continue
		}
		if err := p.checkPeer(ip, port, listed); err != nil {
			errs = append(errs, err)
			continue
		}
		c, err := d.DialContext(ctx, network, netip.AddrPortFrom(ip, port).String())
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return nil, fmt.Errorf("dialing %s: no %s address", host, network)
	}
	return nil, fmt.Errorf("dialing %s: %w", host, errors.Join(errs...))
}

func (p *Policy) resolve(ctx context.Context, network, name string) ([]netip.Addr, error) {
	var r Resolver = net.DefaultResolver
	if p.cfg.Resolver != nil {
		r = p.cfg.Resolver
	}
	ipnet := "ip"
	switch network {
	case "tcp4":
		ipnet = "ip4"
	case "tcp6":
		ipnet = "ip6"
	}
	rctx, cancel := context.WithTimeout(ctx, ConnectTimeout)
	defer cancel()
	ips, err := r.LookupNetIP(rctx, ipnet, name)
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %w", name, err)
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("resolving %s: no addresses", name)
	}
	return ips, nil
}

// control re-checks the address the socket is about to connect to.
func (p *Policy) control(port uint16, listed bool) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		if network != "tcp4" && network != "tcp6" {
			return refuse(ErrForbiddenAddress, "network "+network)
		}
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return refuse(ErrInvalidHost, "unparsable peer address")
		}
		if ap.Port() != port {
			return refuse(ErrPortNotAllowed, strconv.Itoa(int(ap.Port())))
		}
		return p.checkPeer(ap.Addr(), ap.Port(), listed)
	}
}

// Transport returns an HTTP transport that connects only through the
// policy and never through a proxy from the environment.
func (p *Policy) Transport() *http.Transport {
	return &http.Transport{
		Proxy:                  nil, // never HTTP(S)_PROXY: the check must judge the real peer
		DialContext:            p.DialContext,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    ConnectTimeout,
		MaxResponseHeaderBytes: 64 << 10,
		ForceAttemptHTTP2:      true,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
	}
}

// Client returns an HTTP client over Transport with the given overall
// timeout. It does not follow redirects (the 3xx answer is returned): a
// service OCV calls has no reason to send it elsewhere.
func (p *Policy) Client(timeout time.Duration) *http.Client {
	return &http.Client{
		Transport: p.Transport(),
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}
