package edgetls

import (
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// devMu serialises DevTLS within the process; lockDir does it across
// processes.
var devMu sync.Mutex

// defaultDevHosts are always in the dev leaf.
var defaultDevHosts = []string{"localhost", "127.0.0.1", "::1"}

// DevTLS loads or creates, under dir, a local development CA and a server
// certificate, and returns a server TLS configuration using them together
// with the path of the CA certificate (for the user to trust or to pass as
// a client's root).
//
// dir is created with mode 0700 (and tightened to 0700 if it exists with
// looser permissions). It holds ca.pem and ca-key.pem (ECDSA P-256, ten
// years; the key 0600), and server.pem and server-key.pem (ECDSA P-256, 90
// days) for localhost, 127.0.0.1, ::1 and hosts. The server certificate is
// re-issued when missing, expiring within 30 days, not signed by the CA, or
// made for a different set of hosts. The CA is re-created only when missing
// or expiring within 90 days; an existing but unusable CA returns
// ErrInvalidDevCA. Hosts are IP addresses or DNS names (a leading "*."
// wildcard is allowed); anything else returns ErrInvalidHost.
//
// Files are written to a temporary file and renamed, under an exclusive
// lock on dir/.lock, so concurrent callers (goroutines or processes) all
// end up with the same CA and a complete leaf.
func DevTLS(dir string, hosts []string) (*tls.Config, string, error) {
	if strings.TrimSpace(dir) == "" {
		return nil, "", fmt.Errorf("%w: dev TLS directory is empty", ErrInvalidConfig)
	}
	set, err := devHosts(hosts)
	if err != nil {
		return nil, "", err
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, "", fmt.Errorf("resolving dev TLS directory: %w", err)
	}
	if err := privateDir(dir); err != nil {
		return nil, "", err
	}

	devMu.Lock()
	defer devMu.Unlock()
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, "", err
	}
	defer unlock()

	ca, err := loadOrCreateCA(dir)
	if err != nil {
		return nil, "", fmt.Errorf("loading dev CA: %w", err)
	}
	leaf, err := loadOrIssueLeaf(dir, ca, set)
	if err != nil {
		return nil, "", fmt.Errorf("loading dev server certificate: %w", err)
	}
	cfg := &tls.Config{
		Certificates: []tls.Certificate{leaf},
		NextProtos:   []string{"h2", "http/1.1"},
	}
	harden(cfg)
	return cfg, filepath.Join(dir, caCertFile), nil
}

// harden applies the protocol floor and curve preferences shared by the
// dev and ACME configurations. Cipher suites stay at Go's defaults, which
// offer only ECDHE with AEAD ciphers in TLS 1.2 and are not configurable in
// TLS 1.3.
func harden(cfg *tls.Config) {
	cfg.MinVersion = tls.VersionTLS12
	// Hybrid post-quantum first (TLS 1.3 only), then X25519 and P-256.
	cfg.CurvePreferences = []tls.CurveID{tls.X25519MLKEM768, tls.X25519, tls.CurveP256}
}

// privateDir creates dir with mode 0700 or tightens an existing one: it
// holds private keys.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating dev TLS directory: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("checking dev TLS directory: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: %s is not a directory", ErrInvalidConfig, dir)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("restricting dev TLS directory: %w", err)
		}
	}
	return nil
}

// devHosts normalises the default hosts plus hosts into a host set.
func devHosts(hosts []string) (devHostSet, error) {
	var set devHostSet
	for _, h := range slices.Concat(defaultDevHosts, hosts) {
		h = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(h)), ".")
		if ip := net.ParseIP(strings.Trim(h, "[]")); ip != nil {
			set.ips = append(set.ips, ip)
			continue
		}
		if !validDNSName(h) {
			return devHostSet{}, fmt.Errorf("%w: %q", ErrInvalidHost, h)
		}
		set.dns = append(set.dns, h)
	}
	set.dns = sortedLower(set.dns)
	slices.SortFunc(set.ips, func(a, b net.IP) int { return strings.Compare(a.String(), b.String()) })
	set.ips = slices.CompactFunc(set.ips, func(a, b net.IP) bool { return a.Equal(b) })
	return set, nil
}

// validDNSName accepts LDH labels of 1 to 63 characters, at most 253 in
// all, with an optional leading "*." wildcard label.
func validDNSName(name string) bool {
	name = strings.TrimPrefix(name, "*.")
	if name == "" || len(name) > 253 {
		return false
	}
	for label := range strings.SplitSeq(name, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range []byte(label) {
			if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
				return false
			}
		}
	}
	return true
}

// sortedLower returns names lowercased, sorted and deduplicated.
func sortedLower(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, strings.ToLower(n))
	}
	slices.Sort(out)
	return slices.Compact(out)
}
