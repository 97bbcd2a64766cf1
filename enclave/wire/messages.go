package wire

// Message is a frame body. Append and Decode are exact inverses; Decode
// rejects truncated input, over-long fields and trailing bytes with an error
// wrapping ErrBadRequest. Decode never panics and allocates only for string
// fields and the bounded key list.
type Message interface {
	// Append appends the encoded message to b. A field over its bound gives
	// an error wrapping ErrBadRequest.
	Append(b []byte) ([]byte, error)
	// Decode replaces the message's fields with those encoded in b.
	// Byte-slice fields alias b: copy them to keep them past b's lifetime.
	Decode(b []byte) error
}

// AttestRequest asks for an attestation document. As a connection's first
// frame it also opens the session: ProxyPublicKey is the proxy's ephemeral
// X25519 key and Nonce (at least MinHandshakeNonce bytes) salts the key
// derivation. Later in a session, ProxyPublicKey is empty and Nonce is an
// auditor's nonce.
type AttestRequest struct {
	Nonce          []byte
	ProxyPublicKey []byte
}

// Append implements Message.
func (m *AttestRequest) Append(b []byte) ([]byte, error) {
	b, err := appendBytes(b, m.Nonce, MaxNonceLen, "nonce")
	if err != nil {
		return b, err
	}
	return appendBytes(b, m.ProxyPublicKey, X25519KeyLen, "proxy public key")
}

// Decode implements Message.
func (m *AttestRequest) Decode(b []byte) error {
	d := decoder{b: b}
	m.Nonce = d.bytes(MaxNonceLen, "nonce")
	m.ProxyPublicKey = d.bytes(X25519KeyLen, "proxy public key")
	return d.finish()
}

// AttestResponse carries the enclave's attestation document, which binds its
// channel public key and the request's nonce.
type AttestResponse struct {
	Document []byte
}

// Append implements Message.
func (m *AttestResponse) Append(b []byte) ([]byte, error) {
	return appendBytes(b, m.Document, MaxDocumentLen, "document")
}

// Decode implements Message.
func (m *AttestResponse) Decode(b []byte) error {
	d := decoder{b: b}
	m.Document = d.bytes(MaxDocumentLen, "document")
	return d.finish()
}

// CreateKEKRequest asks for the next version of a vault's key-encryption
// key (version 1 for a new vault). Token is the creator's access token: the
// enclave creates a KEK only for an owner or admin of OrgID, under a key id
// that names the organization of that token.
type CreateKEKRequest struct {
	Token   string
	OrgID   string
	VaultID string
}

// Append implements Message.
func (m *CreateKEKRequest) Append(b []byte) ([]byte, error) {
	b, err := appendString(b, m.Token, MaxTokenLen, "token")
	if err != nil {
		return b, err
	}
	if b, err = appendString(b, m.OrgID, MaxIDLen, "org id"); err != nil {
		return b, err
	}
	return appendString(b, m.VaultID, MaxIDLen, "vault id")
}

// Decode implements Message.
func (m *CreateKEKRequest) Decode(b []byte) error {
	d := decoder{b: b}
	m.Token = d.str(MaxTokenLen, "token")
	m.OrgID = d.str(MaxIDLen, "org id")
	m.VaultID = d.str(MaxIDLen, "vault id")
	return d.finish()
}

// CreateKEKResponse names the KEK version created.
type CreateKEKResponse struct {
	KEKVersion uint32
}

// Append implements Message.
func (m *CreateKEKResponse) Append(b []byte) ([]byte, error) {
	return appendU32(b, m.KEKVersion), nil
}

// Decode implements Message.
func (m *CreateKEKResponse) Decode(b []byte) error {
	d := decoder{b: b}
	m.KEKVersion = d.u32("kek version")
	return d.finish()
}
