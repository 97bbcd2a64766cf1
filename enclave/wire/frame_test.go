package wire

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/binary"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func testHeader() Header {
	h := Header{Version: ProtocolVersion, Op: OpOpen, RequestID: 7, Timestamp: 1_700_000_000_000}
	copy(h.Nonce[:], "0123456789abcdef")
	return h
}

func TestFrameRoundTrip(t *testing.T) {
	h := testHeader()
	body := []byte("hello")
	frame, err := AppendFrame(nil, &h, body)
	require.NoError(t, err)
	require.Len(t, frame, HeaderSize+len(body))

	got, gotBody, err := DecodeFrame(frame)
	require.NoError(t, err)
	require.Equal(t, h, got)
	require.Equal(t, body, gotBody)

	// The same frame read from a stream, twice in a row.
	fr := NewFrameReader(bytes.NewReader(append(append([]byte{}, frame...), frame...)))
	for range 2 {
		got, gotBody, err = fr.Next(MaxBodySize)
		require.NoError(t, err)
		require.Equal(t, h, got)
		require.Equal(t, body, gotBody)
		require.Equal(t, frame, fr.Raw())
	}
	_, _, err = fr.Next(MaxBodySize)
	require.ErrorIs(t, err, io.EOF)
}

func TestDecodeFrameRejects(t *testing.T) {
	h := testHeader()
	good, err := AppendFrame(nil, &h, []byte("body"))
	require.NoError(t, err)
	mutate := func(f func(b []byte) []byte) []byte { return f(append([]byte{}, good...)) }
	tests := map[string]struct {
		frame   []byte
		wantErr error
	}{
		"fail short header":   {good[:HeaderSize-1], ErrBadRequest},
		"fail bad magic":      {mutate(func(b []byte) []byte { b[0] = 'X'; return b }), ErrBadRequest},
		"fail other version":  {mutate(func(b []byte) []byte { b[2] = 2; return b }), ErrBadRequest},
		"fail unknown flag":   {mutate(func(b []byte) []byte { b[3] = 0x80; return b }), ErrBadRequest},
		"fail truncated body": {good[:len(good)-1], ErrBadRequest},
		"fail trailing byte":  {append(append([]byte{}, good...), 0), ErrBadRequest},
		// A claimed body over the hard limit is refused from the header alone.
		"fail oversized body length": {mutate(func(b []byte) []byte {
			binary.BigEndian.PutUint32(b[72:], MaxBodySize+1)
			return b
		}), ErrBadRequest},
		"ok": {good, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, _, err := DecodeFrame(tc.frame)
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
}

func TestFrameReaderLimit(t *testing.T) {
	h := testHeader()
	frame, err := AppendFrame(nil, &h, make([]byte, 100))
	require.NoError(t, err)
	_, _, err = NewFrameReader(bytes.NewReader(frame)).Next(99)
	require.ErrorIs(t, err, ErrBadRequest)
	_, _, err = NewFrameReader(bytes.NewReader(frame[:HeaderSize+10])).Next(100)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
}

func TestMAC(t *testing.T) {
	var key [SessionKeySize]byte
	_, _ = rand.Read(key[:])
	m := NewMAC(&key)
	h := testHeader()
	body := []byte("body")
	m.Sign(&h, body)
	require.True(t, m.Verify(&h, body))

	var other [SessionKeySize]byte
	other[0] = 1
	tests := map[string]func(h *Header, body []byte) (*Header, []byte, *MAC){
		"fail other key":       func(h *Header, b []byte) (*Header, []byte, *MAC) { return h, b, NewMAC(&other) },
		"fail body edited":     func(h *Header, b []byte) (*Header, []byte, *MAC) { return h, []byte("bodY"), m },
		"fail op changed":      func(h *Header, b []byte) (*Header, []byte, *MAC) { h.Op = OpSeal; return h, b, m },
		"fail request id":      func(h *Header, b []byte) (*Header, []byte, *MAC) { h.RequestID++; return h, b, m },
		"fail timestamp moved": func(h *Header, b []byte) (*Header, []byte, *MAC) { h.Timestamp++; return h, b, m },
		"fail nonce changed":   func(h *Header, b []byte) (*Header, []byte, *MAC) { h.Nonce[0] ^= 1; return h, b, m },
		"fail code changed":    func(h *Header, b []byte) (*Header, []byte, *MAC) { h.Code = Integrity; return h, b, m },
		// A request MAC must never pass as the MAC of a response.
		"fail direction flipped": func(h *Header, b []byte) (*Header, []byte, *MAC) { h.Flags = FlagResponse; return h, b, m },
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			hc := h
			hp, b, mm := mutate(&hc, body)
			require.False(t, mm.Verify(hp, b))
		})
	}
}

func TestFresh(t *testing.T) {
	now := time.UnixMilli(1_700_000_000_000)
	require.True(t, Fresh(now.UnixMilli(), now))
	require.True(t, Fresh(now.Add(-MaxClockSkew).UnixMilli(), now))
	require.True(t, Fresh(now.Add(MaxClockSkew).UnixMilli(), now))
	require.False(t, Fresh(now.Add(-MaxClockSkew-time.Millisecond).UnixMilli(), now))
	require.False(t, Fresh(now.Add(MaxClockSkew+time.Millisecond).UnixMilli(), now))
}

func TestDeriveSessionKey(t *testing.T) {
	proxy, err := ecdh.X25519().GenerateKey(rand.Reader)
	require.NoError(t, err)
	encl, err := ecdh.X25519().GenerateKey(rand.Reader)
	require.NoError(t, err)
	nonce := bytes.Repeat([]byte{3}, 32)
	pp, ep := proxy.PublicKey().Bytes(), encl.PublicKey().Bytes()

	k1, err := DeriveSessionKey(proxy, encl.PublicKey(), nonce, pp, ep)
	require.NoError(t, err)
	k2, err := DeriveSessionKey(encl, proxy.PublicKey(), nonce, pp, ep)
	require.NoError(t, err)
	require.Equal(t, k1, k2)

	k3, err := DeriveSessionKey(proxy, encl.PublicKey(), bytes.Repeat([]byte{4}, 32), pp, ep)
	require.NoError(t, err)
	require.NotEqual(t, k1, k3, "the nonce must change the key")

	_, err = DeriveSessionKey(proxy, encl.PublicKey(), nonce[:8], pp, ep)
	require.ErrorIs(t, err, ErrBadRequest)
	_, err = ParseX25519PublicKey(make([]byte, 31))
	require.ErrorIs(t, err, ErrBadRequest)
	// The all-zero point has low order: the shared secret would be zero.
	zero, err := ParseX25519PublicKey(make([]byte, 32))
	require.NoError(t, err)
	_, err = DeriveSessionKey(proxy, zero, nonce, pp, ep)
	require.ErrorIs(t, err, ErrBadRequest)
}
