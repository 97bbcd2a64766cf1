package webhooks

import (
	"crypto/tls"
	"net/http"
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
// and refuses at connect time any resolved address the outbound policy
// refuses (egress.Policy.DialContext: every resolved address is judged and
// the dialer's Control hook sees the exact IP being connected to), so a name
// that passed ValidateURL but resolves to a private address (DNS rebinding)
// is refused with an error wrapping ErrForbiddenAddress.
func NewClient(opts Options) *http.Client {
	tr := &http.Transport{
		Proxy:                  nil, // never HTTP(S)_PROXY: the check must judge the real peer
		DialContext:            opts.policy().DialContext,
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
