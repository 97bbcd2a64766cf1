package wire

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// Peer authentication. The handshake's key agreement proves the enclave to
// the proxy (the attestation document binds the enclave's channel key); the
// proxy proves itself with a provisioned Ed25519 identity key. Its first
// MAC'd frame is a second OpAttest whose body is a PeerProof: a signature,
// with the proxy identity key, over the session's PeerTranscript. The
// transcript holds both ephemeral X25519 keys, the handshake nonce and the
// digest of the attestation document, so a proof belongs to exactly one
// session and cannot be replayed on another. The enclave serves nothing
// else on a connection until a proof from a configured key verified.

// PeerProofContext is the signature's domain separation label.
const PeerProofContext = "ocv-peer-proof-v1"

// PeerKeyIDLen is the size of a proxy identity key's id.
const PeerKeyIDLen = 8

// PeerProofLen is the encoded size of a PeerProof.
const PeerProofLen = PeerKeyIDLen + ed25519.SignatureSize

// PeerKeyID names a proxy identity public key: the first PeerKeyIDLen bytes
// of its SHA-256. It is public and may be logged.
type PeerKeyID [PeerKeyIDLen]byte

// String is the id in hex, for logs.
func (id PeerKeyID) String() string { return fmt.Sprintf("%x", id[:]) }

// PeerKeyIDOf returns pub's id.
func PeerKeyIDOf(pub ed25519.PublicKey) PeerKeyID {
	sum := sha256.Sum256(pub)
	var id PeerKeyID
	copy(id[:], sum[:PeerKeyIDLen])
	return id
}

// PeerTranscript is what a PeerProof signs: the handshake of one session.
type PeerTranscript struct {
	Nonce            []byte
	ProxyPublicKey   []byte
	EnclavePublicKey []byte
	DocumentDigest   [sha256.Size]byte
}

// NewPeerTranscript builds the transcript of a handshake from its nonce,
// both channel keys and the attestation document the enclave answered. It
// keeps copies: the arguments may alias a frame buffer.
func NewPeerTranscript(nonce, proxyPub, enclavePub, document []byte) (PeerTranscript, error) {
	t := PeerTranscript{Nonce: bytes.Clone(nonce), ProxyPublicKey: bytes.Clone(proxyPub), EnclavePublicKey: bytes.Clone(enclavePub),
		DocumentDigest: sha256.Sum256(document)}
	if _, err := t.Bytes(); err != nil {
		return PeerTranscript{}, err
	}
	return t, nil
}

// Bytes is the signed message: PeerProofContext ‖ u16 len(nonce) ‖ nonce ‖
// proxy channel key ‖ enclave channel key ‖ SHA-256(document).
func (t *PeerTranscript) Bytes() ([]byte, error) {
	if len(t.ProxyPublicKey) != X25519KeyLen || len(t.EnclavePublicKey) != X25519KeyLen {
		return nil, fmt.Errorf("%w: transcript channel key length", ErrBadRequest)
	}
	if len(t.Nonce) < MinHandshakeNonce || len(t.Nonce) > MaxNonceLen {
		return nil, fmt.Errorf("%w: transcript nonce length", ErrBadRequest)
	}
	b := make([]byte, 0, len(PeerProofContext)+2+len(t.Nonce)+2*X25519KeyLen+sha256.Size)
	b = append(b, PeerProofContext...)
	b = appendU16(b, uint16(len(t.Nonce)))
	b = append(b, t.Nonce...)
	b = append(b, t.ProxyPublicKey...)
	b = append(b, t.EnclavePublicKey...)
	return append(b, t.DocumentDigest[:]...), nil
}

// PeerProof is the body of the proxy's first MAC'd frame (OpAttest): which
// identity key signed, and its signature over the session's transcript.
type PeerProof struct {
	KeyID     PeerKeyID
	Signature [ed25519.SignatureSize]byte
}

// SignPeerProof signs t with priv.
func SignPeerProof(priv ed25519.PrivateKey, t *PeerTranscript) (*PeerProof, error) {
	if len(priv) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("%w: proxy identity key length", ErrBadRequest)
	}
	msg, err := t.Bytes()
	if err != nil {
		return nil, err
	}
	p := &PeerProof{KeyID: PeerKeyIDOf(priv.Public().(ed25519.PublicKey))}
	copy(p.Signature[:], ed25519.Sign(priv, msg))
	return p, nil
}

// Append implements Message.
func (m *PeerProof) Append(b []byte) ([]byte, error) {
	b = append(b, m.KeyID[:]...)
	return append(b, m.Signature[:]...), nil
}

// Decode implements Message.
func (m *PeerProof) Decode(b []byte) error {
	d := decoder{b: b}
	d.fixed(m.KeyID[:], "key id")
	d.fixed(m.Signature[:], "signature")
	return d.finish()
}

// Errors of VerifyPeerProof; both mean the peer is not the proxy.
var (
	ErrPeerUnknownKey   = errors.New("peer proof: unknown proxy identity key")
	ErrPeerBadSignature = errors.New("peer proof: signature does not verify")
)

// VerifyPeerProof checks p over t against the configured keys. Every key's
// id is compared (in constant time), so the time taken does not say which
// key matched.
func VerifyPeerProof(keys []ed25519.PublicKey, t *PeerTranscript, p *PeerProof) error {
	msg, err := t.Bytes()
	if err != nil {
		return err
	}
	var match ed25519.PublicKey
	for _, k := range keys {
		id := PeerKeyIDOf(k)
		if subtle.ConstantTimeCompare(id[:], p.KeyID[:]) == 1 && match == nil {
			match = k
		}
	}
	if match == nil {
		return ErrPeerUnknownKey
	}
	if !ed25519.Verify(match, msg, p.Signature[:]) {
		return ErrPeerBadSignature
	}
	return nil
}

// ParsePeerPublicKey parses a proxy identity public key as configured: the
// 32-byte Ed25519 key in standard base64, optionally prefixed "ed25519:".
func ParsePeerPublicKey(s string) (ed25519.PublicKey, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "ed25519:")
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, errors.New("must be a 32-byte Ed25519 public key in base64 (\"ed25519:...\")")
	}
	return ed25519.PublicKey(b), nil
}

// FormatPeerPublicKey is the inverse of ParsePeerPublicKey.
func FormatPeerPublicKey(pub ed25519.PublicKey) string {
	return "ed25519:" + base64.StdEncoding.EncodeToString(pub)
}
