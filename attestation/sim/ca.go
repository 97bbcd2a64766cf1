package sim

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"time"
)

const (
	rootLifetime  = 20 * 365 * 24 * time.Hour
	interLifetime = 5 * 365 * 24 * time.Hour
	// interRenewBefore replaces an intermediate this close to expiry.
	interRenewBefore = 30 * 24 * time.Hour
	// caBackdate lets CA certificates cover clocks, and tests, that run a
	// little behind the clock that created them.
	caBackdate = 24 * time.Hour
)

// authority is the simulator CA as loaded from disk. The root key is not kept.
type authority struct {
	root     *x509.Certificate
	inter    *x509.Certificate
	interKey *ecdsa.PrivateKey
}

// loadOrCreateCA loads the CA under dir, creating what is missing, under an
// exclusive lock on the directory.
func loadOrCreateCA(dir string, now time.Time) (*authority, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating CA directory: %w", err)
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	defer unlock()

	root, rootKey, err := loadOrCreateRoot(dir, now)
	if err != nil {
		return nil, fmt.Errorf("loading root CA: %w", err)
	}
	inter, interKey, err := loadOrCreateIntermediate(dir, root, rootKey, now)
	if err != nil {
		return nil, fmt.Errorf("loading intermediate CA: %w", err)
	}
	return &authority{root: root, inter: inter, interKey: interKey}, nil
}

func loadOrCreateRoot(dir string, now time.Time) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	certPath, keyPath := filepath.Join(dir, rootCertFile), filepath.Join(dir, rootKeyFile)
	certOK, keyOK := exists(certPath), exists(keyPath)
	if !certOK && !keyOK {
		return createRoot(certPath, keyPath, now)
	}
	if !certOK || !keyOK {
		return nil, nil, fmt.Errorf("%w: root certificate or key missing", ErrCorruptCA)
	}
	cert, key, err := loadPair(certPath, keyPath)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrCorruptCA, err)
	}
	return cert, key, nil
}

// loadOrCreateIntermediate reuses the intermediate on disk when it is intact,
// signed by root and not near expiry; otherwise it issues a new one. An
// intermediate is never pinned, so replacing it is safe.
func loadOrCreateIntermediate(dir string, root *x509.Certificate, rootKey *ecdsa.PrivateKey, now time.Time) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	certPath, keyPath := filepath.Join(dir, interCertFile), filepath.Join(dir, interKeyFile)
	cert, key, err := loadPair(certPath, keyPath)
	if err == nil && cert.CheckSignatureFrom(root) == nil && now.Add(interRenewBefore).Before(cert.NotAfter) {
		return cert, key, nil
	}
	key, err = newKey()
	if err != nil {
		return nil, nil, err
	}
	tmpl := caTemplate("OCV simulator intermediate CA", now, interLifetime)
	tmpl.MaxPathLenZero = true
	der, err := x509.CreateCertificate(rand.Reader, tmpl, root, &key.PublicKey, rootKey)
	if err != nil {
		return nil, nil, fmt.Errorf("creating certificate: %w", err)
	}
	return storePair(certPath, keyPath, der, key)
}

func createRoot(certPath, keyPath string, now time.Time) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := newKey()
	if err != nil {
		return nil, nil, err
	}
	tmpl := caTemplate("OCV simulator root CA", now, rootLifetime)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("creating certificate: %w", err)
	}
	return storePair(certPath, keyPath, der, key)
}

// storePair writes the key before the certificate: a certificate on disk
// always has its key beside it.
func storePair(certPath, keyPath string, der []byte, key *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, fmt.Errorf("parsing new certificate: %w", err)
	}
	if err := writeKey(keyPath, key); err != nil {
		return nil, nil, err
	}
	if err := writeCert(certPath, der); err != nil {
		return nil, nil, err
	}
	return cert, key, nil
}

// loadPair reads a certificate and its key and checks that they match.
func loadPair(certPath, keyPath string) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	cert, err := readCert(certPath)
	if err != nil {
		return nil, nil, err
	}
	key, err := readKey(keyPath)
	if err != nil {
		return nil, nil, err
	}
	pub, ok := cert.PublicKey.(*ecdsa.PublicKey)
	if !ok || !pub.Equal(&key.PublicKey) {
		return nil, nil, fmt.Errorf("%s does not match %s", filepath.Base(keyPath), filepath.Base(certPath))
	}
	return cert, key, nil
}

func caTemplate(cn string, now time.Time, lifetime time.Duration) *x509.Certificate {
	return &x509.Certificate{
		SerialNumber:          randomSerial(),
		Subject:               pkix.Name{CommonName: cn, Organization: []string{"OCV simulator"}},
		NotBefore:             now.Add(-caBackdate),
		NotAfter:              now.Add(lifetime),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
}

func newKey() (*ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating P-384 key: %w", err)
	}
	return key, nil
}

// randomSerial returns a positive 127-bit serial number.
func randomSerial() *big.Int {
	// crypto/rand.Int does not fail on Go 1.24+ (rand.Reader never errors).
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	return n.Add(n, big.NewInt(1))
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}
