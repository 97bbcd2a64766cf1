package wire

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"hash"
	"time"
)

// Direction labels keep a request MAC from ever verifying as a response MAC
// and the other way round.
const (
	labelRequest  = "ocv-channel-v1 request\x00"
	labelResponse = "ocv-channel-v1 response\x00"
)

// MaxClockSkew is how far a request timestamp may be from the enclave's
// clock, either way (DESIGN.md §1: stale is >30 s).
const MaxClockSkew = 30 * time.Second

// MAC computes and checks frame MACs (the X-Service-TEE-Origin of DESIGN.md
// §1): HMAC-SHA256 keyed by the session key over the direction label, the
// protocol version, op, code, request id, timestamp, nonce and SHA-256 of
// the body. Every input has a fixed size, so no two frames share a MAC
// input. A MAC is not safe for concurrent use; make one per connection.
type MAC struct {
	h   hash.Hash
	in  [24 + 2 + 2 + 1 + 8 + 8 + NonceSize + sha256.Size]byte
	sum [MACSize]byte
}

// NewMAC returns a MAC keyed by the session key.
func NewMAC(key *[SessionKeySize]byte) *MAC {
	return &MAC{h: hmac.New(sha256.New, key[:])}
}

// compute fills m.sum for a frame. The label is chosen from the header's
// response flag.
func (m *MAC) compute(h *Header, body []byte) {
	label := labelRequest
	if h.IsResponse() {
		label = labelResponse
	}
	b := m.in[:0]
	b = append(b, label...)
	for len(b) < 24 {
		b = append(b, 0)
	}
	b = append(b, h.Version)
	b = binary.BigEndian.AppendUint16(b, uint16(h.Op))
	b = binary.BigEndian.AppendUint16(b, uint16(h.Code))
	b = binary.BigEndian.AppendUint64(b, h.RequestID)
	b = binary.BigEndian.AppendUint64(b, uint64(h.Timestamp))
	b = append(b, h.Nonce[:]...)
	digest := sha256.Sum256(body)
	b = append(b, digest[:]...)
	m.h.Reset()
	m.h.Write(b)
	m.h.Sum(m.sum[:0])
}

// Sign sets h.MAC for the frame (h, body).
func (m *MAC) Sign(h *Header, body []byte) {
	m.compute(h, body)
	h.MAC = m.sum
}

// Verify reports, in constant time, whether h.MAC is right for (h, body).
func (m *MAC) Verify(h *Header, body []byte) bool {
	m.compute(h, body)
	return subtle.ConstantTimeCompare(m.sum[:], h.MAC[:]) == 1
}

// Fresh reports whether a frame timestamp (unix ms) is within MaxClockSkew
// of now.
func Fresh(ts int64, now time.Time) bool {
	d := now.UnixMilli() - ts
	skew := MaxClockSkew.Milliseconds()
	return d <= skew && d >= -skew
}
