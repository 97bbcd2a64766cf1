//lint:file-ignore SA1019 golang.org/x/net/http2.Server is deprecated in favour of net/http's own HTTP/2, but net/http has no way to count a connection's frames: its server takes only a *tls.Conn, x/net's ServeConn any net.Conn (the guard). Under Go 1.27 x/net wraps net/http's server; the guard's read error then closes the connection instead of a GOAWAY, which test/h2abuse_test.go accepts too.

package proxy

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"golang.org/x/net/http2"
)

// HTTP/2 limits of the TLS listener. A stream reset by its client
// (RST_STREAM) still costs the server a handler start and its cleanup, so
// a client that opens and resets streams in a loop ("rapid reset",
// CVE-2023-44487) can load the proxy without ever holding a stream open.
// Neither net/http nor golang.org/x/net/http2 bounds the rate of resets (they
// bound only the handlers queued beyond MaxConcurrentStreams), so the
// proxy counts the client's RST_STREAM frames itself and ends the connection
// with GOAWAY (ENHANCE_YOUR_CALM) once they exceed a budget.
const (
	// H2MaxConcurrentStreams is the number of streams (and so of running
	// handlers) one connection may have open at a time.
	H2MaxConcurrentStreams = 100
	// H2ResetBurst is how many RST_STREAM frames a connection may send at
	// once; H2ResetsPerSecond refills that budget. A client that cancels
	// now and then (a timeout, a page left) never meets the bound; one that
	// resets faster for long ends its connection.
	H2ResetBurst      = 100
	H2ResetsPerSecond = 10
	// h2MaxHeaderTable bounds the HPACK table the server keeps per
	// connection for the client's headers (the protocol's default).
	h2MaxHeaderTable = 4096
)

// HTTP/2 frame layout (RFC 9113 section 4.1, 3.4).
const (
	h2ClientPrefaceLen = 24 // "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
	h2FrameHeaderLen   = 9  // length (24 bits), type, flags, stream id (32 bits)
	h2FrameRSTStream   = 0x3
)

// configureHTTP2 serves HTTP/2 on hs through golang.org/x/net/http2 with
// the limits above, each connection read through an h2Guard. The maximum
// header list size is hs.MaxHeaderBytes, the idle timeout hs.IdleTimeout.
func configureHTTP2(hs *http.Server, log *slog.Logger, box *penaltyBox) error {
	h2s := &http2.Server{
		MaxConcurrentStreams:      H2MaxConcurrentStreams,
		MaxDecoderHeaderTableSize: h2MaxHeaderTable,
		IdleTimeout:               hs.IdleTimeout,
		CountError: func(errType string) {
			log.LogAttrs(context.Background(), slog.LevelDebug, "http2 protocol error", slog.String("type", errType))
		},
	}
	if err := http2.ConfigureServer(hs, h2s); err != nil {
		return fmt.Errorf("configuring HTTP/2: %w", err)
	}
	// Only TLS connections are served, and every HTTP/2 one through the
	// guard: no unguarded path for prior-knowledge cleartext HTTP/2.
	delete(hs.TLSNextProto, "unencrypted_http2")
	hs.TLSNextProto[http2.NextProtoTLS] = func(hs *http.Server, c *tls.Conn, h http.Handler) {
		// net/http hands its per-connection base context (ConnContext's)
		// through this unadvertised method, as http2.ConfigureServer's own
		// handler reads it.
		var ctx context.Context
		if bc, ok := h.(interface{ BaseContext() context.Context }); ok {
			ctx = bc.BaseContext()
		}
		h2s.ServeConn(newH2Guard(c, time.Now, log, box.punish), &http2.ServeConnOpts{Context: ctx, Handler: h, BaseConfig: hs})
	}
	return nil
}

// h2Guard is the server's side of one HTTP/2 connection with the client's
// RST_STREAM frames counted as they are read. Once they exceed the budget,
// Read discards what it read and returns
// http2.ConnectionError(ENHANCE_YOUR_CALM): the HTTP/2 server answers a
// connection error from its reader with GOAWAY carrying that code and
// closes the connection. (Any other server would at least close it on the
// read error: the guard fails closed either way.) It embeds *tls.Conn so the
// server still sees the TLS state. Only the server's frame reader calls
// Read, one call at a time.
type h2Guard struct {
	*tls.Conn
	now     func() time.Time
	frames  frameScanner
	budget  tokenBucket
	tripped bool
	log     *slog.Logger
	// onTrip is told the peer's address when the budget runs out (the
	// penalty box); nil ignores it.
	onTrip func(net.Addr)
}

func newH2Guard(c *tls.Conn, now func() time.Time, log *slog.Logger, onTrip func(net.Addr)) *h2Guard {
	return &h2Guard{Conn: c, now: now, log: log, onTrip: onTrip, frames: newFrameScanner(),
		budget: newTokenBucket(H2ResetBurst, H2ResetsPerSecond, now())}
}

// Read implements net.Conn.
func (g *h2Guard) Read(p []byte) (int, error) {
	if g.tripped {
		return 0, http2.ConnectionError(http2.ErrCodeEnhanceYourCalm)
	}
	n, err := g.Conn.Read(p)
	if resets := g.frames.scan(p[:n]); resets > 0 && !g.budget.take(resets, g.now()) {
		g.tripped = true
		// One line per connection ended, like net/http's own: a new
		// connection costs the client a TLS handshake and the budget, and
		// this line must not drown in the peer's cancelled requests (whose
		// lines obs.ClientLimiter bounds).
		g.log.LogAttrs(context.Background(), slog.LevelWarn, "http2 connection ended: too many stream resets",
			slog.String("remote_addr", g.RemoteAddr().String()), slog.Int("reset_burst", H2ResetBurst),
			slog.Int("resets_per_second", H2ResetsPerSecond))
		if g.onTrip != nil {
			g.onTrip(g.RemoteAddr())
		}
		return 0, http2.ConnectionError(http2.ErrCodeEnhanceYourCalm)
	}
	return n, err
}

// frameScanner follows the frame boundaries of the bytes a client sends on
// an HTTP/2 connection (the preface, then frames), fed in chunks of any
// size. It only reads frame headers; the payloads are skipped unread.
type frameScanner struct {
	skip int // bytes of the preface or of a payload still to pass over
	hdr  [h2FrameHeaderLen]byte
	nhdr int // bytes of hdr filled so far
}

func newFrameScanner() frameScanner { return frameScanner{skip: h2ClientPrefaceLen} }

// scan consumes p and returns the number of RST_STREAM frames whose header
// ends in p.
func (s *frameScanner) scan(p []byte) (resets int) {
	for len(p) > 0 {
		if s.skip > 0 {
			n := min(s.skip, len(p))
			s.skip -= n
			p = p[n:]
			continue
		}
		n := copy(s.hdr[s.nhdr:], p)
		s.nhdr += n
		p = p[n:]
		if s.nhdr < h2FrameHeaderLen {
			break
		}
		s.nhdr = 0
		s.skip = int(s.hdr[0])<<16 | int(s.hdr[1])<<8 | int(s.hdr[2])
		if s.hdr[3] == h2FrameRSTStream {
			resets++
		}
	}
	return resets
}

// tokenBucket holds up to burst tokens, refilled at rate per second.
type tokenBucket struct {
	tokens, burst, rate float64
	last                time.Time
}

func newTokenBucket(burst, rate float64, now time.Time) tokenBucket {
	return tokenBucket{tokens: burst, burst: burst, rate: rate, last: now}
}

// take spends n tokens; false when fewer than n were left (the bucket is
// then empty).
func (b *tokenBucket) take(n int, now time.Time) bool {
	if d := now.Sub(b.last); d > 0 {
		b.tokens = min(b.burst, b.tokens+d.Seconds()*b.rate)
		b.last = now
	}
	b.tokens -= float64(n)
	if b.tokens < 0 {
		b.tokens = 0
		return false
	}
	return true
}
