package sim

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"sync"
	"time"

	"github.com/opencustody/ocv/attestation"
)

const (
	// Nitro signing certificates live a few hours; so do the simulator's.
	leafLifetime    = 3 * time.Hour
	leafRenewBefore = 30 * time.Minute
	leafBackdate    = 5 * time.Minute
	// NSM input limits.
	maxPublicKey = 1024
	maxNonce     = 512
)

// Issuer issues simulated Nitro attestation documents. It is safe for
// concurrent use.
type Issuer struct {
	moduleID string
	pcrs     map[uint][]byte // read-only after New
	now      func() time.Time
	ca       *authority

	mu      sync.Mutex // guards leaf and leafKey
	leaf    *x509.Certificate
	leafKey *ecdsa.PrivateKey
}

// New loads the simulator CA from cfg.Dir, creating the directory (0700), a
// P-384 root and an intermediate if they are missing, and makes a fresh
// in-memory signing certificate. Concurrent calls on one directory, in one
// process or several, agree on one CA.
func New(cfg Config) (*Issuer, error) {
	if cfg.Dir == "" {
		return nil, fmt.Errorf("%w: Dir is required", ErrInvalidConfig)
	}
	pcrs, err := cfg.pcrBank()
	if err != nil {
		return nil, err
	}
	i := &Issuer{moduleID: cfg.ModuleID, pcrs: pcrs, now: cfg.Now}
	if i.moduleID == "" {
		i.moduleID = defaultModuleID
	}
	if i.now == nil {
		i.now = time.Now
	}
	i.ca, err = loadOrCreateCA(cfg.Dir, i.now())
	if err != nil {
		return nil, err
	}
	if i.leaf, i.leafKey, err = i.newLeaf(i.now()); err != nil {
		return nil, err
	}
	return i, nil
}

// Root returns the simulator root certificate that documents chain to.
func (i *Issuer) Root() *x509.Certificate {
	return i.ca.root
}

// Issue returns a tagged COSE_Sign1 Nitro-format document binding publicKey
// and nonce, signed like an NSM would sign it.
func (i *Issuer) Issue(ctx context.Context, publicKey, nonce []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("issuing simulated attestation: %w", err)
	}
	if len(publicKey) > maxPublicKey || len(nonce) > maxNonce {
		return nil, fmt.Errorf("issuing simulated attestation: %w", ErrInputTooLarge)
	}
	now := i.now()
	if now.UnixMilli() <= 0 {
		return nil, fmt.Errorf("issuing simulated attestation: clock before 1970")
	}
	leaf, key, err := i.signingCert(now)
	if err != nil {
		return nil, fmt.Errorf("issuing simulated attestation: %w", err)
	}
	p := payload{
		ModuleID:    i.moduleID,
		Digest:      "SHA384",
		Timestamp:   uint64(now.UnixMilli()),
		PCRs:        i.pcrs,
		Certificate: leaf.Raw,
		CABundle:    [][]byte{i.ca.root.Raw, i.ca.inter.Raw},
		PublicKey:   publicKey,
		Nonce:       nonce,
	}
	doc, err := signDocument(p, key)
	if err != nil {
		return nil, fmt.Errorf("issuing simulated attestation: %w", err)
	}
	return doc, nil
}

// signingCert returns the current leaf, replacing it when it is about to
// expire or not yet valid at now.
func (i *Issuer) signingCert(now time.Time) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if now.Before(i.leaf.NotBefore) || now.Add(leafRenewBefore).After(i.leaf.NotAfter) {
		leaf, key, err := i.newLeaf(now)
		if err != nil {
			return nil, nil, err
		}
		i.leaf, i.leafKey = leaf, key
	}
	return i.leaf, i.leafKey, nil
}

// newLeaf makes an in-memory P-384 signing certificate under the
// intermediate. Its key never touches disk.
func (i *Issuer) newLeaf(now time.Time) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := newKey()
	if err != nil {
		return nil, nil, err
	}
	notAfter := now.Add(leafLifetime)
	if notAfter.After(i.ca.inter.NotAfter) {
		notAfter = i.ca.inter.NotAfter
	}
	tmpl := &x509.Certificate{
		SerialNumber:          randomSerial(),
		Subject:               pkix.Name{CommonName: "OCV simulator enclave", Organization: []string{"OCV simulator"}},
		NotBefore:             now.Add(-leafBackdate),
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, i.ca.inter, &key.PublicKey, i.ca.interKey)
	if err != nil {
		return nil, nil, fmt.Errorf("creating signing certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, fmt.Errorf("parsing signing certificate: %w", err)
	}
	return leaf, key, nil
}

var _ attestation.Issuer = (*Issuer)(nil)
