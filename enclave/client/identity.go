package client

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"

	"github.com/opencustody/ocv/enclave/wire"
)

// Identity is the proxy's identity key: the enclave serves only a peer that
// signs the handshake with a key it is configured with
// (proxy_identity_pubkeys). It is provisioned out of band and never leaves
// the proxy host.
type Identity struct {
	priv ed25519.PrivateKey
}

// NewIdentity wraps an Ed25519 private key.
func NewIdentity(priv ed25519.PrivateKey) (*Identity, error) {
	if len(priv) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("%w: proxy identity key is not an Ed25519 private key", ErrInvalidConfig)
	}
	return &Identity{priv: priv}, nil
}

// GenerateIdentity makes a new identity key.
func GenerateIdentity() (*Identity, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating proxy identity key: %w", err)
	}
	return &Identity{priv: priv}, nil
}

// PublicKey is the key the enclave must be configured with.
func (id *Identity) PublicKey() ed25519.PublicKey { return id.priv.Public().(ed25519.PublicKey) }

// KeyID is the public key's id (public; it may be logged).
func (id *Identity) KeyID() wire.PeerKeyID { return wire.PeerKeyIDOf(id.PublicKey()) }

// Sign signs a session's transcript (the handshake does it; exported for
// tests that craft proofs).
func (id *Identity) Sign(t *wire.PeerTranscript) (*wire.PeerProof, error) {
	return wire.SignPeerProof(id.priv, t)
}

// MarshalPEM encodes the private key as a PKCS#8 "PRIVATE KEY" PEM block.
func (id *Identity) MarshalPEM() ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(id.priv)
	if err != nil {
		return nil, fmt.Errorf("encoding proxy identity key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// WriteFile writes the private key to path as PEM, readable by its owner
// only; it refuses to overwrite an existing file.
func (id *Identity) WriteFile(path string) error {
	b, err := id.MarshalPEM()
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("writing proxy identity key: %w", err)
	}
	_, err = f.Write(b)
	return errors.Join(err, f.Close())
}

// LoadIdentity reads the proxy identity key at path: a PKCS#8 PEM "PRIVATE
// KEY" holding an Ed25519 key, or the raw 32-byte seed. The file must not
// be readable or writable by group or others (0600 or stricter).
func LoadIdentity(path string) (*Identity, error) {
	if path == "" {
		return nil, fmt.Errorf("%w: proxy identity key file is required", ErrInvalidConfig)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%w: proxy identity key: %w", ErrInvalidConfig, err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%w: proxy identity key %s must be readable by its owner only (chmod 600), is %v", ErrInvalidConfig, path, fi.Mode().Perm())
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: proxy identity key: %w", ErrInvalidConfig, err)
	}
	defer clear(raw)
	return parseIdentity(raw)
}

func parseIdentity(raw []byte) (*Identity, error) {
	if len(raw) == ed25519.SeedSize {
		return &Identity{priv: ed25519.NewKeyFromSeed(raw)}, nil
	}
	block, _ := pem.Decode(raw)
	if block == nil || block.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("%w: proxy identity key is neither a PEM PRIVATE KEY nor a 32-byte seed", ErrInvalidConfig)
	}
	defer clear(block.Bytes)
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: proxy identity key: not PKCS#8", ErrInvalidConfig)
	}
	priv, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%w: proxy identity key is not an Ed25519 key", ErrInvalidConfig)
	}
	return &Identity{priv: priv}, nil
}
