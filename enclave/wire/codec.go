package wire

import (
	"encoding/binary"
	"fmt"
)

// Field bounds. Every length-prefixed field is checked against one of these
// on both encode and decode.
const (
	MaxIDLen          = 128  // organization and vault ids
	MaxPathLen        = 1024 // secret paths (the service spec's limit)
	MaxNonceLen       = 512  // attestation nonces (the Nitro NSM limit)
	MinHandshakeNonce = 16   // the connection's first Attest needs a real nonce
	MaxDocumentLen    = 64 << 10
	MaxPlaintextLen   = 1 << 20 // the proxy's body limit
	MaxCiphertextLen  = MaxPlaintextLen + 1024
	MaxWrappedKeyLen  = 512
	MaxClaimsLen      = 16 << 10
	MaxTokenLen       = 32 << 10
	MaxShortLen       = 256 // kid, alg, curve, health strings
	MaxKeys           = 64  // public keys in one PublicKeys answer
	X25519KeyLen      = 32
)

// Bounds of the caller's authorisation fields (Open, Seal, SealPolicySet).
const (
	// MaxPolicySetLen bounds an encoded policy set (policy.EncodeSet). With
	// a 1 MiB value, a token and a set this large, a request still fits in
	// one frame.
	MaxPolicySetLen = 512 << 10
	// PolicyMACLen is the size of a policy-set MAC (HMAC-SHA256); a
	// PolicyMAC field holds this many bytes or none.
	PolicyMACLen = 32
	// MaxClientIPLen bounds the textual client address (an IPv6 address
	// with a zone fits).
	MaxClientIPLen = 64
)

// appendU16 and friends append big-endian integers.
func appendU16(b []byte, v uint16) []byte { return binary.BigEndian.AppendUint16(b, v) }
func appendU32(b []byte, v uint32) []byte { return binary.BigEndian.AppendUint32(b, v) }
func appendU64(b []byte, v uint64) []byte { return binary.BigEndian.AppendUint64(b, v) }

// appendBytes appends a uint32 length prefix and v, refusing more than max
// bytes.
func appendBytes(b, v []byte, max int, field string) ([]byte, error) {
	if len(v) > max {
		return b, fmt.Errorf("%w: %s too long", ErrBadRequest, field)
	}
	b = appendU32(b, uint32(len(v)))
	return append(b, v...), nil
}

// appendString is appendBytes for strings.
func appendString(b []byte, v string, max int, field string) ([]byte, error) {
	if len(v) > max {
		return b, fmt.Errorf("%w: %s too long", ErrBadRequest, field)
	}
	b = appendU32(b, uint32(len(v)))
	return append(b, v...), nil
}

// decoder reads fields from a body. The first failure sticks; later reads
// return zero values, so a message decoder checks err once at the end.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(field, why string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s %s", ErrBadRequest, field, why)
	}
	d.b = nil
}

func (d *decoder) u16(field string) uint16 {
	if len(d.b) < 2 {
		d.fail(field, "truncated")
		return 0
	}
	v := binary.BigEndian.Uint16(d.b)
	d.b = d.b[2:]
	return v
}

func (d *decoder) u32(field string) uint32 {
	if len(d.b) < 4 {
		d.fail(field, "truncated")
		return 0
	}
	v := binary.BigEndian.Uint32(d.b)
	d.b = d.b[4:]
	return v
}

func (d *decoder) u64(field string) uint64 {
	if len(d.b) < 8 {
		d.fail(field, "truncated")
		return 0
	}
	v := binary.BigEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

// fixed reads exactly len(dst) bytes into dst.
func (d *decoder) fixed(dst []byte, field string) {
	if len(d.b) < len(dst) {
		d.fail(field, "truncated")
		return
	}
	copy(dst, d.b)
	d.b = d.b[len(dst):]
}

// bytes reads a length-prefixed field of at most max bytes. The result
// aliases the input (nil when empty).
func (d *decoder) bytes(max int, field string) []byte {
	n := d.u32(field)
	if d.err != nil {
		return nil
	}
	if uint64(n) > uint64(max) {
		d.fail(field, "too long")
		return nil
	}
	if uint64(n) > uint64(len(d.b)) {
		d.fail(field, "truncated")
		return nil
	}
	if n == 0 {
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

// str reads a length-prefixed field as a string (a copy).
func (d *decoder) str(max int, field string) string {
	return string(d.bytes(max, field))
}

// finish reports the first failure, or trailing bytes.
func (d *decoder) finish() error {
	if d.err != nil {
		return d.err
	}
	if len(d.b) != 0 {
		return fmt.Errorf("%w: trailing bytes", ErrBadRequest)
	}
	return nil
}
