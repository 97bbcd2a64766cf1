package edgetls

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
	"path/filepath"
	"time"
)

const (
	caCertFile   = "ca.pem"
	caKeyFile    = "ca-key.pem"
	leafCertFile = "server.pem"
	leafKeyFile  = "server-key.pem"

	caValidityYears = 10
	leafValidity    = 90 * 24 * time.Hour
	leafRenewBefore = 30 * 24 * time.Hour
	// backdate tolerates clocks of clients a little behind ours.
	backdate = time.Hour
)

// now is the clock of the dev CA; tests move it.
var now = time.Now

// devCA is the local development CA.
type devCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// loadOrCreateCA loads dir/ca.pem and dir/ca-key.pem, or creates them when
// the certificate is missing (it is written last, so its absence means no
// complete CA exists) or too close to expiry to sign a full leaf. A present
// but unusable CA is an error, never silently replaced: the user may trust it.
func loadOrCreateCA(dir string) (devCA, error) {
	certPath, keyPath := filepath.Join(dir, caCertFile), filepath.Join(dir, caKeyFile)
	cert, err := readCert(certPath)
	if errors.Is(err, fs.ErrNotExist) {
		return createCA(certPath, keyPath)
	}
	if err != nil {
		return devCA{}, fmt.Errorf("%w: %w", ErrInvalidDevCA, err)
	}
	key, err := readKey(keyPath)
	if err != nil {
		return devCA{}, fmt.Errorf("%w: %w", ErrInvalidDevCA, err)
	}
	if !cert.IsCA || !keyMatches(cert, key) {
		return devCA{}, fmt.Errorf("%w: %s is not a CA for %s", ErrInvalidDevCA, certPath, keyPath)
	}
	if now().Add(leafValidity).After(cert.NotAfter) {
		return createCA(certPath, keyPath)
	}
	return devCA{cert: cert, key: key}, nil
}

// createCA makes a P-256 CA valid for ten years and writes it.
func createCA(certPath, keyPath string) (devCA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return devCA{}, fmt.Errorf("generating CA key: %w", err)
	}
	serial, err := randomSerial()
	if err != nil {
		return devCA{}, err
	}
	start := now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject: pkix.Name{
			Organization: []string{"OCV development"},
			CommonName:   "OCV development CA " + serial.Text(16)[:8],
		},
		NotBefore:             start.Add(-backdate),
		NotAfter:              start.AddDate(caValidityYears, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		// why: the CA signs leaves only, never intermediates
		MaxPathLenZero: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return devCA{}, fmt.Errorf("creating CA certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return devCA{}, fmt.Errorf("parsing CA certificate: %w", err)
	}
	if err := writeKeyPair(certPath, keyPath, der, key); err != nil {
		return devCA{}, fmt.Errorf("writing CA: %w", err)
	}
	return devCA{cert: cert, key: key}, nil
}

// randomSerial returns a random positive 128-bit serial number.
func randomSerial() (*big.Int, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, fmt.Errorf("generating serial number: %w", err)
	}
	return serial.Add(serial, big.NewInt(1)), nil
}
