package wire

// SealRequest asks the enclave to encrypt one secret version under a fresh
// data key wrapped by the vault's KEK. KEKVersion 0 means the latest.
//
// Token, PolicySet, PolicyMAC and ClientIP are the caller's authorisation
// for a write of Path (see "Caller authorisation" in messages_policy.go).
//
// SecretType is the secret's type (e.g. "private_key"; at most
// MaxSecretTypeLen of [a-z0-9_]): the enclave binds it into the blob, and
// reads it back from there, never from the caller, when it decides whether
// the value may be opened (a private_key or ssh_key is never opened for an
// agent with the intents API; ErrPrivateKeyBlocked).
type SealRequest struct {
	OrgID         string
	VaultID       string
	Path          string
	SecretVersion uint32
	KEKVersion    uint32
	Plaintext     []byte
	Token         string
	PolicySet     []byte
	PolicyMAC     []byte
	ClientIP      string
	SecretType    string
}

// MaxSecretTypeLen bounds SealRequest.SecretType.
const MaxSecretTypeLen = 32

// Append implements Message.
func (m *SealRequest) Append(b []byte) ([]byte, error) {
	b, err := appendLocator(b, m.OrgID, m.VaultID, m.Path)
	if err != nil {
		return b, err
	}
	b = appendU32(b, m.SecretVersion)
	b = appendU32(b, m.KEKVersion)
	if b, err = appendBytes(b, m.Plaintext, MaxPlaintextLen, "plaintext"); err != nil {
		return b, err
	}
	if b, err = appendCaller(b, m.Token, m.PolicySet, m.PolicyMAC, m.ClientIP); err != nil {
		return b, err
	}
	return appendString(b, m.SecretType, MaxSecretTypeLen, "secret type")
}

// Decode implements Message.
func (m *SealRequest) Decode(b []byte) error {
	d := decoder{b: b}
	m.OrgID, m.VaultID, m.Path = d.locator()
	m.SecretVersion = d.u32("secret version")
	m.KEKVersion = d.u32("kek version")
	m.Plaintext = d.bytes(MaxPlaintextLen, "plaintext")
	m.Token, m.PolicySet, m.PolicyMAC, m.ClientIP = d.caller()
	m.SecretType = d.str(MaxSecretTypeLen, "secret type")
	return d.finish()
}

// SealResponse is what the proxy stores: the KEK version used, the wrapped
// data key and the versioned ciphertext blob.
type SealResponse struct {
	KEKVersion uint32
	WrappedDEK []byte
	Ciphertext []byte
}

// Append implements Message.
func (m *SealResponse) Append(b []byte) ([]byte, error) {
	b = appendU32(b, m.KEKVersion)
	b, err := appendBytes(b, m.WrappedDEK, MaxWrappedKeyLen, "wrapped dek")
	if err != nil {
		return b, err
	}
	return appendBytes(b, m.Ciphertext, MaxCiphertextLen, "ciphertext")
}

// Decode implements Message.
func (m *SealResponse) Decode(b []byte) error {
	d := decoder{b: b}
	m.KEKVersion = d.u32("kek version")
	m.WrappedDEK = d.bytes(MaxWrappedKeyLen, "wrapped dek")
	m.Ciphertext = d.bytes(MaxCiphertextLen, "ciphertext")
	return d.finish()
}

// OpenRequest asks the enclave to decrypt a sealed secret version. The
// locator must be the one it was sealed under.
//
// Token, PolicySet, PolicyMAC and ClientIP are the caller's authorisation
// for a read of Path (see "Caller authorisation" in messages_policy.go).
type OpenRequest struct {
	OrgID         string
	VaultID       string
	Path          string
	SecretVersion uint32
	WrappedDEK    []byte
	Ciphertext    []byte
	Token         string
	PolicySet     []byte
	PolicyMAC     []byte
	ClientIP      string
}

// Append implements Message.
func (m *OpenRequest) Append(b []byte) ([]byte, error) {
	b, err := appendLocator(b, m.OrgID, m.VaultID, m.Path)
	if err != nil {
		return b, err
	}
	b = appendU32(b, m.SecretVersion)
	if b, err = appendBytes(b, m.WrappedDEK, MaxWrappedKeyLen, "wrapped dek"); err != nil {
		return b, err
	}
	if b, err = appendBytes(b, m.Ciphertext, MaxCiphertextLen, "ciphertext"); err != nil {
		return b, err
	}
	return appendCaller(b, m.Token, m.PolicySet, m.PolicyMAC, m.ClientIP)
}

// Decode implements Message.
func (m *OpenRequest) Decode(b []byte) error {
	d := decoder{b: b}
	m.OrgID, m.VaultID, m.Path = d.locator()
	m.SecretVersion = d.u32("secret version")
	m.WrappedDEK = d.bytes(MaxWrappedKeyLen, "wrapped dek")
	m.Ciphertext = d.bytes(MaxCiphertextLen, "ciphertext")
	m.Token, m.PolicySet, m.PolicyMAC, m.ClientIP = d.caller()
	return d.finish()
}

// OpenResponse carries the decrypted value.
type OpenResponse struct {
	Plaintext []byte
}

// Append implements Message.
func (m *OpenResponse) Append(b []byte) ([]byte, error) {
	return appendBytes(b, m.Plaintext, MaxPlaintextLen, "plaintext")
}

// Decode implements Message.
func (m *OpenResponse) Decode(b []byte) error {
	d := decoder{b: b}
	m.Plaintext = d.bytes(MaxPlaintextLen, "plaintext")
	return d.finish()
}

func appendLocator(b []byte, org, vault, path string) ([]byte, error) {
	b, err := appendString(b, org, MaxIDLen, "org id")
	if err != nil {
		return b, err
	}
	if b, err = appendString(b, vault, MaxIDLen, "vault id"); err != nil {
		return b, err
	}
	return appendString(b, path, MaxPathLen, "path")
}

func (d *decoder) locator() (org, vault, path string) {
	org = d.str(MaxIDLen, "org id")
	vault = d.str(MaxIDLen, "vault id")
	path = d.str(MaxPathLen, "path")
	return org, vault, path
}
