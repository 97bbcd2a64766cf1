package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"time"
)

// The floor: a bare TLS hello-world HTTPS server inside the bench process,
// loaded by the same closed-loop client at the same concurrency levels as
// the scenarios. It costs what any HTTPS answer costs on this machine (TLS
// records, HTTP framing, the client), so every scenario's figures can be
// read as a multiple of it. Its CPU per request is the bench process's own
// CPU (/proc/self/stat) in the window: server and client together.
const (
	floorScenarioName = "tls-floor"
	floorBody         = "hello, world\n"
)

// floorServer is the running floor and a client for it.
type floorServer struct {
	srv   *http.Server
	url   string
	hc    *http.Client
	tr    *http.Transport
	proto string // what the first request negotiated
}

// startFloor starts the floor on a free loopback port with a fresh
// throw-away CA and leaf of the same kind as the stack's development
// certificate (ECDSA P-256, TLS ≥ 1.2, the proxy's curve preferences,
// HTTP/2 and HTTP/1.1 offered), and a client built like the stack's
// (newPoolTransport with conns idle connections, HTTP/2 when h2). It checks
// one request before returning.
func startFloor(ctx context.Context, conns int, h2 bool, timeout time.Duration) (_ *floorServer, err error) {
	leaf, pool, err := floorCert()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("floor: listening: %w", err)
	}
	protos := new(http.Protocols)
	protos.SetHTTP1(true)
	protos.SetHTTP2(true)
	f := &floorServer{
		srv: &http.Server{
			Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				_, _ = io.WriteString(w, floorBody)
			}),
			TLSConfig: &tls.Config{
				Certificates:     []tls.Certificate{leaf},
				MinVersion:       tls.VersionTLS12,
				CurvePreferences: []tls.CurveID{tls.X25519MLKEM768, tls.X25519, tls.CurveP256},
			},
			Protocols:         protos,
			ReadHeaderTimeout: 10 * time.Second,
		},
		url: "https://" + ln.Addr().String() + "/",
	}
	go func() { _ = f.srv.ServeTLS(ln, "", "") }()
	defer func() {
		if err != nil {
			err = errors.Join(err, f.Close())
		}
	}()
	f.tr = newPoolTransport(pool, conns, h2)
	f.hc = &http.Client{Transport: f.tr, Timeout: timeout}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.url, nil)
	if err != nil {
		return f, fmt.Errorf("floor: building request: %w", err)
	}
	resp, err := f.hc.Do(req)
	if err != nil {
		return f, fmt.Errorf("floor: first request: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK || string(body) != floorBody {
		return f, fmt.Errorf("floor: first request: %w: status %d", errors.Join(ErrUnexpectedStatus, err), resp.StatusCode)
	}
	f.proto = resp.Proto
	return f, nil
}

// scenario gets the hello-world page.
func (f *floorServer) scenario() scenario {
	return scenario{
		name: floorScenarioName,
		request: func(ctx context.Context, _, _, _ int) (*http.Request, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.url, nil)
			if err != nil {
				return nil, fmt.Errorf("building request: %w", err)
			}
			return req, nil
		},
	}
}

// Close stops the server and drops the client's connections.
func (f *floorServer) Close() error {
	if f.tr != nil {
		f.tr.CloseIdleConnections()
	}
	if err := f.srv.Close(); err != nil {
		return fmt.Errorf("floor: closing: %w", err)
	}
	return nil
}

// floorCert makes a CA and a leaf for 127.0.0.1 signed by it (ECDSA P-256,
// valid for a day), and a pool that trusts the CA.
func floorCert() (tls.Certificate, *x509.CertPool, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("floor: CA key: %w", err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "ocv bench floor CA"},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("floor: CA certificate: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("floor: parsing CA certificate: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("floor: server key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("floor: server certificate: %w", err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool, nil
}
