package wire

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Frame layout constants.
const (
	// ProtocolVersion is the only header version this package speaks.
	ProtocolVersion = 1
	// HeaderSize is the fixed size of a frame header.
	HeaderSize = 76
	// MaxFrameSize bounds a whole frame (header and body). The proxy limits
	// request bodies to 1 MiB; sealing adds a small envelope on top.
	MaxFrameSize = 2 << 20
	// MaxBodySize bounds a frame body.
	MaxBodySize = MaxFrameSize - HeaderSize
	// NonceSize is the size of the per-frame random nonce.
	NonceSize = 16
	// MACSize is the size of the per-frame HMAC-SHA256.
	MACSize = 32
)

// FlagResponse marks a frame sent by the enclave. It is the only flag.
const FlagResponse uint8 = 1

var magic = [2]byte{'O', 'V'}

// Header is the fixed part of a frame.
type Header struct {
	Version   uint8
	Flags     uint8
	Op        Op
	Code      Code // OK in requests
	RequestID uint64
	Timestamp int64 // unix milliseconds of the sender's clock
	Nonce     [NonceSize]byte
	MAC       [MACSize]byte
	BodyLen   uint32
}

// IsResponse reports whether the frame was sent by the enclave.
func (h *Header) IsResponse() bool { return h.Flags&FlagResponse != 0 }

// Put writes h into b, which must hold at least HeaderSize bytes.
func (h *Header) Put(b []byte) {
	_ = b[HeaderSize-1]
	b[0], b[1] = magic[0], magic[1]
	b[2] = h.Version
	b[3] = h.Flags
	binary.BigEndian.PutUint16(b[4:], uint16(h.Op))
	binary.BigEndian.PutUint16(b[6:], uint16(h.Code))
	binary.BigEndian.PutUint64(b[8:], h.RequestID)
	binary.BigEndian.PutUint64(b[16:], uint64(h.Timestamp))
	copy(b[24:40], h.Nonce[:])
	copy(b[40:72], h.MAC[:])
	binary.BigEndian.PutUint32(b[72:], h.BodyLen)
}

// ParseHeader reads and checks a header: the magic, the version, the flags
// and the body length bound. It does not check the MAC.
func ParseHeader(b []byte) (Header, error) {
	var h Header
	if len(b) < HeaderSize {
		return h, fmt.Errorf("%w: short header", ErrBadRequest)
	}
	if b[0] != magic[0] || b[1] != magic[1] {
		return h, fmt.Errorf("%w: bad magic", ErrBadRequest)
	}
	h.Version = b[2]
	h.Flags = b[3]
	h.Op = Op(binary.BigEndian.Uint16(b[4:]))
	h.Code = Code(binary.BigEndian.Uint16(b[6:]))
	h.RequestID = binary.BigEndian.Uint64(b[8:])
	h.Timestamp = int64(binary.BigEndian.Uint64(b[16:]))
	copy(h.Nonce[:], b[24:40])
	copy(h.MAC[:], b[40:72])
	h.BodyLen = binary.BigEndian.Uint32(b[72:])
	switch {
	case h.Version != ProtocolVersion:
		return h, fmt.Errorf("%w: unsupported protocol version", ErrBadRequest)
	case h.Flags&^FlagResponse != 0:
		return h, fmt.Errorf("%w: unknown flags", ErrBadRequest)
	case h.BodyLen > MaxBodySize:
		return h, fmt.Errorf("%w: frame too large", ErrBadRequest)
	}
	return h, nil
}

// DecodeFrame parses one complete frame held in b (nothing before or after
// it). The returned body aliases b.
func DecodeFrame(b []byte) (Header, []byte, error) {
	h, err := ParseHeader(b)
	if err != nil {
		return h, nil, err
	}
	if uint64(len(b)-HeaderSize) != uint64(h.BodyLen) {
		return h, nil, fmt.Errorf("%w: frame length mismatch", ErrBadRequest)
	}
	return h, b[HeaderSize:], nil
}

// AppendFrame appends the header (with BodyLen set from body) and body to
// dst.
func AppendFrame(dst []byte, h *Header, body []byte) ([]byte, error) {
	if len(body) > MaxBodySize {
		return dst, fmt.Errorf("%w: frame too large", ErrBadRequest)
	}
	h.BodyLen = uint32(len(body))
	n := len(dst)
	dst = grow(dst, HeaderSize)
	h.Put(dst[n : n+HeaderSize])
	return append(dst, body...), nil
}

// FrameReader reads frames from a stream into one reusable buffer. It is
// not safe for concurrent use.
type FrameReader struct {
	r   io.Reader
	buf []byte
}

// NewFrameReader returns a FrameReader over r.
func NewFrameReader(r io.Reader) *FrameReader {
	return &FrameReader{r: r, buf: make([]byte, HeaderSize, 4096)}
}

// Next reads one frame whose body is at most maxBody bytes (and never more
// than MaxBodySize). The header is validated before any body byte is read,
// so a hostile length never makes it allocate. The returned body and raw
// frame alias the reader's buffer until the next call.
func (fr *FrameReader) Next(maxBody int) (Header, []byte, error) {
	if _, err := io.ReadFull(fr.r, fr.buf[:HeaderSize]); err != nil {
		return Header{}, nil, err
	}
	h, err := ParseHeader(fr.buf[:HeaderSize])
	if err != nil {
		return h, nil, err
	}
	if maxBody > MaxBodySize {
		maxBody = MaxBodySize
	}
	if int64(h.BodyLen) > int64(maxBody) {
		return h, nil, fmt.Errorf("%w: frame too large", ErrBadRequest)
	}
	total := HeaderSize + int(h.BodyLen)
	if cap(fr.buf) < total {
		nb := make([]byte, total)
		copy(nb, fr.buf[:HeaderSize])
		fr.buf = nb
	}
	fr.buf = fr.buf[:total]
	if _, err := io.ReadFull(fr.r, fr.buf[HeaderSize:]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return h, nil, err
	}
	return h, fr.buf[HeaderSize:], nil
}

// Raw returns the bytes of the frame last returned by Next; it aliases the
// reader's buffer.
func (fr *FrameReader) Raw() []byte { return fr.buf }

func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b[:len(b)+n]
	}
	nb := make([]byte, len(b)+n, 2*cap(b)+n)
	copy(nb, b)
	return nb
}
