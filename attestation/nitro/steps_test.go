package nitro

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"testing"
	"time"

	"github.com/fxamacker/cbor/v2"
	"github.com/stretchr/testify/require"
	"github.com/veraison/go-cose"
)

func TestParseDocument(t *testing.T) {
	pki := newTestPKI(t, "parse")
	good := pki.sign(t, pki.payload())
	tests := map[string]struct {
		doc     []byte
		wantErr error
	}{
		"ok tagged":   {doc: good},
		"ok untagged": {doc: good[1:]}, // dropping the tag-18 head leaves a bare COSE_Sign1
		// Anything before the COSE array is not a document.
		"fail other tag":       {doc: append([]byte{0xd8, 0x62}, good[1:]...), wantErr: ErrMalformed},
		"fail payload not map": {doc: signBody(t, pki, []byte{0x01}), wantErr: ErrMalformed},
		// A second "nonce" key could smuggle a value past a lax decoder.
		"fail duplicate key": {doc: signBody(t, pki, duplicateNonceBody(t)), wantErr: ErrMalformed},
		"fail empty payload": {doc: signBody(t, pki, []byte{}), wantErr: ErrMalformed},
		"fail cbor null":     {doc: []byte{0xf6}, wantErr: ErrMalformed},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			d, err := parseDocument(tc.doc)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Equal(t, testNonce, d.payload.Nonce)
			}
		})
	}
}

func signBody(t *testing.T, pki *testPKI, body []byte) []byte {
	t.Helper()
	signer, err := cose.NewSigner(cose.AlgorithmES384, pki.leafKey)
	require.NoError(t, err)
	msg := cose.Sign1Message{
		Headers: cose.Headers{Protected: cose.ProtectedHeader{cose.HeaderLabelAlgorithm: cose.AlgorithmES384}},
		Payload: body,
	}
	require.NoError(t, msg.Sign(nil, nil, signer))
	doc, err := msg.MarshalCBOR()
	require.NoError(t, err)
	return doc
}

func duplicateNonceBody(t *testing.T) []byte {
	t.Helper()
	// map(2) {"nonce": h'01', "nonce": h'02'}
	return []byte{0xa2, 0x65, 'n', 'o', 'n', 'c', 'e', 0x41, 0x01, 0x65, 'n', 'o', 'n', 'c', 'e', 0x41, 0x02}
}

func TestCheckFields(t *testing.T) {
	pki := newTestPKI(t, "fields")
	tests := map[string]struct {
		edit    func(p *payload)
		wantErr error
	}{
		"ok":                   {edit: func(*payload) {}},
		"ok no optional":       {edit: func(p *payload) { p.PublicKey, p.UserData, p.Nonce = nil, nil, nil }},
		"fail no module_id":    {edit: func(p *payload) { p.ModuleID = "" }, wantErr: ErrMalformed},
		"fail digest":          {edit: func(p *payload) { p.Digest = "SHA512" }, wantErr: ErrMalformed},
		"fail zero timestamp":  {edit: func(p *payload) { p.Timestamp = 0 }, wantErr: ErrMalformed},
		"fail huge timestamp":  {edit: func(p *payload) { p.Timestamp = 1 << 63 }, wantErr: ErrMalformed},
		"fail no PCRs":         {edit: func(p *payload) { p.PCRs = nil }, wantErr: ErrMalformed},
		"fail PCR index 32":    {edit: func(p *payload) { p.PCRs[32] = make([]byte, pcrSize) }, wantErr: ErrMalformed},
		"fail PCR 32 bytes":    {edit: func(p *payload) { p.PCRs[3] = make([]byte, 32) }, wantErr: ErrMalformed},
		"fail no certificate":  {edit: func(p *payload) { p.Certificate = nil }, wantErr: ErrMalformed},
		"fail big certificate": {edit: func(p *payload) { p.Certificate = make([]byte, 1025) }, wantErr: ErrMalformed},
		"fail no cabundle":     {edit: func(p *payload) { p.CABundle = nil }, wantErr: ErrMalformed},
		"fail empty cabundle entry": {
			edit: func(p *payload) { p.CABundle = append(p.CABundle, nil) }, wantErr: ErrMalformed,
		},
		"fail big public_key": {edit: func(p *payload) { p.PublicKey = make([]byte, 1025) }, wantErr: ErrMalformed},
		"fail big user_data":  {edit: func(p *payload) { p.UserData = make([]byte, 513) }, wantErr: ErrMalformed},
		"fail big nonce":      {edit: func(p *payload) { p.Nonce = make([]byte, 513) }, wantErr: ErrMalformed},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p := pki.payload()
			tc.edit(&p)
			require.ErrorIs(t, checkFields(p), tc.wantErr)
		})
	}
}

func TestVerifyChain(t *testing.T) {
	pki := newTestPKI(t, "chain")
	other := newTestPKI(t, "chain-other")
	tests := map[string]struct {
		edit    func(p *payload)
		at      time.Time
		wantErr error
	}{
		"ok":                       {edit: func(*payload) {}, at: t0},
		"ok cabundle out of order": {edit: func(p *payload) { p.CABundle = [][]byte{pki.inter.Raw, pki.root.Raw} }, at: t0},
		"fail intermediate missing": {
			edit: func(p *payload) { p.CABundle = [][]byte{pki.root.Raw} }, at: t0, wantErr: ErrUntrustedChain,
		},
		"fail intermediate of other chain": {
			edit: func(p *payload) { p.CABundle = [][]byte{pki.root.Raw, other.inter.Raw} }, at: t0, wantErr: ErrUntrustedChain,
		},
		"fail before validity": {edit: func(*payload) {}, at: t0.Add(-2 * time.Hour), wantErr: ErrUntrustedChain},
		"fail bad leaf DER":    {edit: func(p *payload) { p.Certificate = []byte{0x30, 0x00} }, at: t0, wantErr: ErrMalformed},
		"fail bad bundle DER":  {edit: func(p *payload) { p.CABundle[1] = []byte{0x30} }, at: t0, wantErr: ErrMalformed},
	}
	roots := Config{Roots: pki.testConfig().Roots}.rootPool()
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p := pki.payload()
			tc.edit(&p)
			leaf, err := verifyChain(p, roots, tc.at)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Equal(t, pki.leaf.Raw, leaf.Raw)
			}
		})
	}
}

func TestVerifySignature(t *testing.T) {
	pki := newTestPKI(t, "sig")
	other := newTestPKI(t, "sig-other")
	d, err := parseDocument(pki.sign(t, pki.payload()))
	require.NoError(t, err)
	tests := map[string]struct {
		leaf    *testPKI
		wantErr error
	}{
		"ok":              {leaf: pki},
		"fail other leaf": {leaf: other, wantErr: ErrBadSignature},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, verifySignature(d.msg, tc.leaf.leaf), tc.wantErr)
		})
	}
	t.Run("fail non-P384 leaf", func(t *testing.T) {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		leaf := issueCert(t, &x509.Certificate{}, nil, k, k)
		require.ErrorIs(t, verifySignature(d.msg, leaf), ErrBadSignature)
	})
}

func TestCheckPCRs(t *testing.T) {
	other := sha384("other")
	tests := map[string]struct {
		pcrs    map[uint][]byte
		allowed map[uint][][]byte
		wantErr error
	}{
		"ok":                  {pcrs: map[uint][]byte{0: testPCR0, 1: other}, allowed: map[uint][][]byte{0: {testPCR0}}},
		"ok unlisted ignored": {pcrs: map[uint][]byte{0: testPCR0, 1: testPCR1}, allowed: map[uint][][]byte{0: {testPCR0}}},
		"fail value":          {pcrs: map[uint][]byte{0: other}, allowed: map[uint][][]byte{0: {testPCR0}}, wantErr: ErrPCRMismatch},
		"fail missing":        {pcrs: map[uint][]byte{0: testPCR0}, allowed: map[uint][][]byte{0: {testPCR0}, 4: {other}}, wantErr: ErrPCRMismatch},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, checkPCRs(tc.pcrs, tc.allowed), tc.wantErr)
		})
	}
}

func TestCheckDebugMode(t *testing.T) {
	tests := map[string]struct {
		pcrs    map[uint][]byte
		wantErr error
	}{
		"ok":           {pcrs: map[uint][]byte{0: testPCR0}},
		"fail zero":    {pcrs: map[uint][]byte{0: make([]byte, pcrSize), 1: testPCR1}, wantErr: ErrDebugMode},
		"fail missing": {pcrs: map[uint][]byte{1: testPCR1}, wantErr: ErrPCRMismatch},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, checkDebugMode(tc.pcrs), tc.wantErr)
		})
	}
}

func TestCheckNonce(t *testing.T) {
	tests := map[string]struct {
		got, want []byte
		wantErr   error
	}{
		"ok":              {got: []byte("abc"), want: []byte("abc")},
		"fail different":  {got: []byte("abc"), want: []byte("abd"), wantErr: ErrNonceMismatch},
		"fail prefix":     {got: []byte("ab"), want: []byte("abc"), wantErr: ErrNonceMismatch},
		"fail absent":     {got: nil, want: []byte("abc"), wantErr: ErrNonceMismatch},
		"fail none asked": {got: nil, want: nil, wantErr: ErrNonceMismatch},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, checkNonce(tc.got, tc.want), tc.wantErr)
		})
	}
}

func TestCheckFreshness(t *testing.T) {
	tests := map[string]struct {
		ts      time.Time
		wantErr error
	}{
		"ok now":            {ts: t0},
		"ok at max age":     {ts: t0.Add(-DefaultMaxAge)},
		"ok small future":   {ts: t0.Add(maxFutureSkew)},
		"fail past max age": {ts: t0.Add(-DefaultMaxAge - time.Millisecond), wantErr: ErrStale},
		"fail far future":   {ts: t0.Add(maxFutureSkew + time.Millisecond), wantErr: ErrStale},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, checkFreshness(tc.ts, t0, DefaultMaxAge), tc.wantErr)
		})
	}
}

// Payload field names must match the AWS specification byte for byte.
func TestPayloadFieldNames(t *testing.T) {
	pki := newTestPKI(t, "names")
	body, err := cbor.Marshal(pki.payload())
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, cbor.Unmarshal(body, &m))
	for _, k := range []string{"module_id", "digest", "timestamp", "pcrs", "certificate", "cabundle", "public_key", "user_data", "nonce"} {
		require.Contains(t, m, k)
	}
}
