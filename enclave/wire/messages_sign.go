package wire

import "fmt"

// SignJWTRequest asks for an ES256 access token over Claims, a JSON object.
// The enclave builds the JOSE header itself.
type SignJWTRequest struct {
	Claims []byte
}

// Append implements Message.
func (m *SignJWTRequest) Append(b []byte) ([]byte, error) {
	return appendBytes(b, m.Claims, MaxClaimsLen, "claims")
}

// Decode implements Message.
func (m *SignJWTRequest) Decode(b []byte) error {
	d := decoder{b: b}
	m.Claims = d.bytes(MaxClaimsLen, "claims")
	return d.finish()
}

// SignJWTResponse carries the compact token and the kid that signed it.
type SignJWTResponse struct {
	Token string
	KID   string
}

// Append implements Message.
func (m *SignJWTResponse) Append(b []byte) ([]byte, error) {
	b, err := appendString(b, m.Token, MaxTokenLen, "token")
	if err != nil {
		return b, err
	}
	return appendString(b, m.KID, MaxShortLen, "kid")
}

// Decode implements Message.
func (m *SignJWTResponse) Decode(b []byte) error {
	d := decoder{b: b}
	m.Token = d.str(MaxTokenLen, "token")
	m.KID = d.str(MaxShortLen, "kid")
	return d.finish()
}

// PublicKeysRequest asks for every token-signing public key. It has no
// fields.
type PublicKeysRequest struct{}

// Append implements Message.
func (m *PublicKeysRequest) Append(b []byte) ([]byte, error) { return b, nil }

// Decode implements Message.
func (m *PublicKeysRequest) Decode(b []byte) error {
	d := decoder{b: b}
	return d.finish()
}

// PublicKey is one JWKS entry: X and Y are the 32-byte big-endian
// coordinates of a P-256 point.
type PublicKey struct {
	KID   string
	Alg   string // "ES256"
	Curve string // "P-256"
	X, Y  []byte
}

// PublicKeysResponse lists the signing keys, oldest first.
type PublicKeysResponse struct {
	Keys []PublicKey
}

// publicKeyMinLen is the smallest encoding of one PublicKey (five empty
// length-prefixed fields); it bounds the slice Decode allocates.
const publicKeyMinLen = 5 * 4

// Append implements Message.
func (m *PublicKeysResponse) Append(b []byte) ([]byte, error) {
	if len(m.Keys) > MaxKeys {
		return b, fmt.Errorf("%w: too many keys", ErrBadRequest)
	}
	b = appendU16(b, uint16(len(m.Keys)))
	var err error
	for i := range m.Keys {
		k := &m.Keys[i]
		if b, err = appendString(b, k.KID, MaxShortLen, "kid"); err != nil {
			return b, err
		}
		if b, err = appendString(b, k.Alg, MaxShortLen, "alg"); err != nil {
			return b, err
		}
		if b, err = appendString(b, k.Curve, MaxShortLen, "curve"); err != nil {
			return b, err
		}
		if b, err = appendBytes(b, k.X, MaxShortLen, "x"); err != nil {
			return b, err
		}
		if b, err = appendBytes(b, k.Y, MaxShortLen, "y"); err != nil {
			return b, err
		}
	}
	return b, nil
}

// Decode implements Message.
func (m *PublicKeysResponse) Decode(b []byte) error {
	d := decoder{b: b}
	n := int(d.u16("key count"))
	if n > MaxKeys || n*publicKeyMinLen > len(d.b) {
		d.fail("key count", "out of range")
		n = 0
	}
	m.Keys = nil
	if n > 0 {
		m.Keys = make([]PublicKey, n)
	}
	for i := 0; i < n && d.err == nil; i++ {
		k := &m.Keys[i]
		k.KID = d.str(MaxShortLen, "kid")
		k.Alg = d.str(MaxShortLen, "alg")
		k.Curve = d.str(MaxShortLen, "curve")
		k.X = d.bytes(MaxShortLen, "x")
		k.Y = d.bytes(MaxShortLen, "y")
	}
	if err := d.finish(); err != nil {
		m.Keys = nil
		return err
	}
	return nil
}

// HealthRequest asks how the enclave and its key store are. It has no
// fields.
type HealthRequest struct{}

// Append implements Message.
func (m *HealthRequest) Append(b []byte) ([]byte, error) { return b, nil }

// Decode implements Message.
func (m *HealthRequest) Decode(b []byte) error {
	d := decoder{b: b}
	return d.finish()
}

// Health statuses of the key store.
const (
	HSMOK          = "ok"
	HSMUnavailable = "unavailable"
)

// Modes an enclave runs in.
const (
	ModeSimulated = "simulated"
	ModeNitro     = "nitro"
)

// HealthResponse reports the key store's status (HSMOK or HSMUnavailable),
// the enclave's mode (ModeSimulated or ModeNitro), how many token-signing
// key versions it sees and a short fixed detail.
type HealthResponse struct {
	HSM      string
	Mode     string
	KeyCount uint32
	Detail   string
}

// Append implements Message.
func (m *HealthResponse) Append(b []byte) ([]byte, error) {
	b, err := appendString(b, m.HSM, MaxShortLen, "hsm status")
	if err != nil {
		return b, err
	}
	if b, err = appendString(b, m.Mode, MaxShortLen, "mode"); err != nil {
		return b, err
	}
	b = appendU32(b, m.KeyCount)
	return appendString(b, m.Detail, MaxShortLen, "detail")
}

// Decode implements Message.
func (m *HealthResponse) Decode(b []byte) error {
	d := decoder{b: b}
	m.HSM = d.str(MaxShortLen, "hsm status")
	m.Mode = d.str(MaxShortLen, "mode")
	m.KeyCount = d.u32("key count")
	m.Detail = d.str(MaxShortLen, "detail")
	return d.finish()
}
