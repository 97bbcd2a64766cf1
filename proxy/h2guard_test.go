package proxy

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/http2"

	"github.com/opencustody/ocv/proxy/edgetls"
	"github.com/opencustody/ocv/test/h2flood"
)

// frame returns an HTTP/2 frame header of type typ with a payload of n bytes.
func frame(typ byte, n int) []byte {
	h := make([]byte, h2FrameHeaderLen, h2FrameHeaderLen+n)
	h[0], h[1], h[2], h[3] = byte(n>>16), byte(n>>8), byte(n), typ
	binary.BigEndian.PutUint32(h[5:], 1)
	return append(h, make([]byte, n)...)
}

func TestFrameScanner(t *testing.T) {
	preface := []byte(http2.ClientPreface)
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	tests := map[string]struct {
		stream     []byte
		chunk      int // 0: all at once
		wantResets int
	}{
		"preface only":                {stream: preface, wantResets: 0},
		"settings then one reset":     {stream: cat(preface, frame(0x4, 6), frame(h2FrameRSTStream, 4)), wantResets: 1},
		"headers and resets in pairs": {stream: cat(preface, frame(0x1, 20), frame(0x3, 4), frame(0x1, 3), frame(0x3, 4)), wantResets: 2},
		"byte by byte":                {stream: cat(preface, frame(0x1, 20), frame(0x3, 4), frame(0x3, 4)), chunk: 1, wantResets: 2},
		// A reset's type byte inside another frame's payload is not a frame.
		"reset type in a payload":               {stream: cat(preface, []byte{0, 0, 12, 0x0, 0, 0, 0, 0, 1}, frame(0x3, 3)), wantResets: 0},
		"a reset in the preface is not counted": {stream: cat(frame(0x3, 4), frame(0x3, 4)), wantResets: 0},
		"header split across reads":             {stream: cat(preface, frame(0x3, 4), frame(0x3, 4)), chunk: 7, wantResets: 2},
		"truncated header is not counted yet":   {stream: cat(preface, frame(0x3, 4)[:8]), wantResets: 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := newFrameScanner()
			got := 0
			for p := tc.stream; len(p) > 0; {
				n := len(p)
				if tc.chunk > 0 {
					n = min(tc.chunk, n)
				}
				got += s.scan(p[:n])
				p = p[n:]
			}
			require.Equal(t, tc.wantResets, got)
		})
	}
}

// refResets counts the RST_STREAM frames of a whole stream the plain way.
func refResets(b []byte) int {
	if len(b) < h2ClientPrefaceLen {
		return 0
	}
	b = b[h2ClientPrefaceLen:]
	n := 0
	for len(b) >= h2FrameHeaderLen {
		if b[3] == h2FrameRSTStream {
			n++
		}
		l := int(b[0])<<16 | int(b[1])<<8 | int(b[2])
		b = b[h2FrameHeaderLen:]
		b = b[min(l, len(b)):]
	}
	return n
}

// FuzzFrameScanner feeds the scanner untrusted bytes in chunks of every
// size: it never panics and counts what a whole-stream parse counts.
func FuzzFrameScanner(f *testing.F) {
	f.Add([]byte(http2.ClientPreface+"\x00\x00\x04\x03\x00\x00\x00\x00\x01abcd"), uint8(3))
	f.Add([]byte("PRI"), uint8(1))
	f.Add(append([]byte(http2.ClientPreface), frame(0x1, 40)...), uint8(9))
	f.Fuzz(func(t *testing.T, b []byte, chunk uint8) {
		s := newFrameScanner()
		got, step := 0, int(chunk)+1
		for p := b; len(p) > 0; {
			n := min(step, len(p))
			got += s.scan(p[:n])
			p = p[n:]
		}
		if want := refResets(b); got != want {
			t.Fatalf("scanned %d resets in chunks of %d, want %d", got, step, want)
		}
	})
}

func TestTokenBucket(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	tests := map[string]struct {
		takes []int
		at    []time.Duration
		want  []bool
	}{
		"burst is allowed":           {takes: []int{100}, at: []time.Duration{0}, want: []bool{true}},
		"beyond the burst is not":    {takes: []int{100, 1}, at: []time.Duration{0, 0}, want: []bool{true, false}},
		"refills at the rate":        {takes: []int{100, 10, 1}, at: []time.Duration{0, time.Second, time.Second}, want: []bool{true, true, false}},
		"refill is capped at burst":  {takes: []int{1, 101}, at: []time.Duration{0, time.Hour}, want: []bool{true, false}},
		"clock going back is inert":  {takes: []int{100, 1}, at: []time.Duration{time.Second, 0}, want: []bool{true, false}},
		"a slow steady client lasts": {takes: []int{5, 5, 5, 5}, at: []time.Duration{0, time.Second, 2 * time.Second, 3 * time.Second}, want: []bool{true, true, true, true}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			b := newTokenBucket(H2ResetBurst, H2ResetsPerSecond, t0)
			for i, n := range tc.takes {
				require.Equal(t, tc.want[i], b.take(n, t0.Add(tc.at[i])), "take %d", i)
			}
		})
	}
}

// TestServeEndsRapidReset: over the real TLS listener, a connection that
// resets a few streams keeps its connection, ordinary HTTP/2 requests see
// their TLS state, a connection that resets streams past the budget gets
// GOAWAY (ENHANCE_YOUR_CALM), and then its address's new connections are
// refused while a connection open before carries on.
func TestServeEndsRapidReset(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	tc, _, err := edgetls.DevTLS(t.TempDir(), []string{"127.0.0.1"})
	require.NoError(t, err)
	hs := NewHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil || r.ProtoMajor != 2 {
			w.WriteHeader(http.StatusTeapot)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}), tc, log)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, hs, ln, log) }()
	t.Cleanup(func() { cancel(); require.NoError(t, <-served) })

	client := &tls.Config{InsecureSkipVerify: true} //nolint:gosec // a test server
	target := h2flood.Target{Addr: ln.Addr().String(), TLS: client, Path: "/"}
	fctx, fcancel := context.WithTimeout(ctx, time.Minute)
	defer fcancel()

	res, err := h2flood.Conn(fctx, target, H2ResetBurst/2)
	require.NoError(t, err)
	require.False(t, res.GoAway || res.Closed, "resets within the budget keep the connection (%+v)", res)

	// A well-behaved client's connection, open before the flood.
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: client, ForceAttemptHTTP2: true}}
	get := func() (int, error) {
		resp, err := hc.Get("https://" + target.Addr + "/")
		if err != nil {
			return 0, err
		}
		_ = resp.Body.Close()
		return resp.StatusCode, nil
	}
	status, err := get()
	require.NoError(t, err)
	require.Equal(t, http.StatusNoContent, status, "HTTP/2 with the TLS state")

	res, err = h2flood.Conn(fctx, target, 1_000_000)
	require.NoError(t, err)
	require.True(t, res.GoAway, "a rapid reset flood gets GOAWAY (%+v)", res)
	require.Equal(t, http2.ErrCodeEnhanceYourCalm, res.Code)
	require.True(t, res.Closed)

	// The flooder's address is penalised: its new connections are closed
	// before the TLS handshake, while the connection already open carries on.
	_, err = h2flood.Conn(fctx, target, 1)
	require.Error(t, err, "a new connection from the penalised address is refused")
	status, err = get()
	require.NoError(t, err)
	require.Equal(t, http.StatusNoContent, status, "the connection open before the flood still serves")
}
