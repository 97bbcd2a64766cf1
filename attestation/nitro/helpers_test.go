package nitro

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha512"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"testing"
	"time"

	"github.com/fxamacker/cbor/v2"
	"github.com/stretchr/testify/require"
	"github.com/veraison/go-cose"
)

// t0 is the issuing time of every test document.
var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

var (
	testNonce = []byte("0123456789abcdef0123456789abcdef")
	testPCR0  = sha384("test enclave image")
	testPCR1  = sha384("test kernel")
)

func sha384(s string) []byte {
	sum := sha512.Sum384([]byte(s))
	return sum[:]
}

// testPKI is a Nitro-like chain: root → intermediate → leaf, all P-384.
type testPKI struct {
	root     *x509.Certificate
	inter    *x509.Certificate
	leaf     *x509.Certificate
	leafKey  *ecdsa.PrivateKey
	rootName string
}

func newTestPKI(t testing.TB, name string) *testPKI {
	t.Helper()
	rootKey := newP384(t)
	root := issueCert(t, &x509.Certificate{Subject: pkix.Name{CommonName: name + " root"}, IsCA: true}, nil, rootKey, rootKey)
	interKey := newP384(t)
	inter := issueCert(t, &x509.Certificate{Subject: pkix.Name{CommonName: name + " intermediate"}, IsCA: true}, root, rootKey, interKey)
	leafKey := newP384(t)
	leaf := issueCert(t, &x509.Certificate{Subject: pkix.Name{CommonName: name + " leaf"}}, inter, interKey, leafKey)
	return &testPKI{root: root, inter: inter, leaf: leaf, leafKey: leafKey, rootName: name}
}

func newP384(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	require.NoError(t, err)
	return k
}

// issueCert signs tmpl (valid t0±1h) with parentKey; parent nil self-signs.
func issueCert(t testing.TB, tmpl, parent *x509.Certificate, parentKey, key *ecdsa.PrivateKey) *x509.Certificate {
	t.Helper()
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	require.NoError(t, err)
	tmpl.SerialNumber = serial
	tmpl.NotBefore, tmpl.NotAfter = t0.Add(-time.Hour), t0.Add(time.Hour)
	tmpl.BasicConstraintsValid = true
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	if tmpl.IsCA {
		tmpl.KeyUsage |= x509.KeyUsageCertSign
	}
	if parent == nil {
		parent = tmpl
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return cert
}

// payload returns a valid payload issued at t0 with 16 PCRs.
func (k *testPKI) payload() payload {
	pcrs := make(map[uint][]byte, 16)
	for i := uint(0); i < 16; i++ {
		pcrs[i] = make([]byte, pcrSize)
	}
	pcrs[0], pcrs[1] = testPCR0, testPCR1
	return payload{
		ModuleID:    "i-0123456789abcdef0-enc0123456789abcdef",
		Digest:      "SHA384",
		Timestamp:   uint64(t0.UnixMilli()),
		PCRs:        pcrs,
		Certificate: k.leaf.Raw,
		CABundle:    [][]byte{k.root.Raw, k.inter.Raw},
		PublicKey:   bytes.Repeat([]byte{7}, 32),
		Nonce:       testNonce,
	}
}

// sign encodes p and signs it with the leaf key as a tagged COSE_Sign1.
func (k *testPKI) sign(t testing.TB, p payload) []byte {
	t.Helper()
	return signWith(t, p, k.leafKey, cose.AlgorithmES384, true)
}

func signWith(t testing.TB, p payload, key *ecdsa.PrivateKey, alg cose.Algorithm, tagged bool) []byte {
	t.Helper()
	body, err := cbor.Marshal(p)
	require.NoError(t, err)
	signer, err := cose.NewSigner(alg, key)
	require.NoError(t, err)
	headers := cose.Headers{
		Protected:   cose.ProtectedHeader{cose.HeaderLabelAlgorithm: alg},
		Unprotected: cose.UnprotectedHeader{},
	}
	var doc []byte
	if tagged {
		doc, err = cose.Sign1(rand.Reader, signer, headers, body, nil)
	} else {
		doc, err = cose.Sign1Untagged(rand.Reader, signer, headers, body, nil)
	}
	require.NoError(t, err)
	return doc
}

// testConfig trusts k's root and allows testPCR0, checked just after t0.
func (k *testPKI) testConfig() Config {
	return Config{
		Roots:       []*x509.Certificate{k.root},
		AllowedPCRs: map[uint][][]byte{0: {testPCR0}},
		Now:         func() time.Time { return t0.Add(10 * time.Second) },
	}
}

func payloadEncode(p payload) ([]byte, error) { return cbor.Marshal(p) }
