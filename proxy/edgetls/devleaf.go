package edgetls

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"net"
	"path/filepath"
	"slices"
)

// devHostSet is the normalised set of names a dev leaf covers.
type devHostSet struct {
	dns []string // sorted, deduplicated, lowercase
	ips []net.IP // sorted by String(), deduplicated
}

// loadOrIssueLeaf returns the server certificate in dir, re-issuing it when
// it is missing, unreadable, not from ca, expiring within 30 days, or made
// for a different host set.
func loadOrIssueLeaf(dir string, ca devCA, hosts devHostSet) (tls.Certificate, error) {
	certPath, keyPath := filepath.Join(dir, leafCertFile), filepath.Join(dir, leafKeyFile)
	if cert, key, ok := loadLeaf(certPath, keyPath, ca, hosts); ok {
		return tls.Certificate{Certificate: [][]byte{cert.Raw}, PrivateKey: key, Leaf: cert}, nil
	}
	return issueLeaf(certPath, keyPath, ca, hosts)
}

// loadLeaf reads the leaf and reports whether it can be reused.
func loadLeaf(certPath, keyPath string, ca devCA, hosts devHostSet) (*x509.Certificate, *ecdsa.PrivateKey, bool) {
	cert, err := readCert(certPath)
	if err != nil {
		return nil, nil, false
	}
	key, err := readKey(keyPath)
	if err != nil || !keyMatches(cert, key) {
		return nil, nil, false
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca.cert)
	t := now()
	if _, err := cert.Verify(x509.VerifyOptions{
		Roots:       roots,
		CurrentTime: t,
		KeyUsages:   []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}); err != nil {
		return nil, nil, false
	}
	if cert.NotAfter.Sub(t) < leafRenewBefore {
		return nil, nil, false
	}
	if !slices.Equal(sortedLower(cert.DNSNames), hosts.dns) || !sameIPs(cert.IPAddresses, hosts.ips) {
		return nil, nil, false
	}
	return cert, key, true
}

// issueLeaf makes a 90-day P-256 server certificate for hosts and writes it.
func issueLeaf(certPath, keyPath string, ca devCA, hosts devHostSet) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("generating server key: %w", err)
	}
	serial, err := randomSerial()
	if err != nil {
		return tls.Certificate{}, err
	}
	start := now()
	notAfter := start.Add(leafValidity)
	if notAfter.After(ca.cert.NotAfter) {
		notAfter = ca.cert.NotAfter
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{Organization: []string{"OCV development"}, CommonName: "localhost"},
		NotBefore:             start.Add(-backdate),
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		DNSNames:              hosts.dns,
		IPAddresses:           hosts.ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, key.Public(), ca.key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("creating server certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("parsing server certificate: %w", err)
	}
	if err := writeKeyPair(certPath, keyPath, der, key); err != nil {
		return tls.Certificate{}, fmt.Errorf("writing server certificate: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}, nil
}

// sameIPs compares IP sets regardless of order and of 4-in-6 encoding.
func sameIPs(got, want []net.IP) bool {
	a, b := ipStrings(got), ipStrings(want)
	return slices.Equal(a, b)
}

func ipStrings(ips []net.IP) []string {
	out := make([]string, 0, len(ips))
	for _, ip := range ips {
		out = append(out, ip.String())
	}
	slices.Sort(out)
	return slices.Compact(out)
}
