package sim

import (
	"bytes"
	"crypto/x509"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fxamacker/cbor/v2"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/attestation/nitro"
)

// The simulator must produce what an NSM produces, byte layout included.
func TestDocumentFormat(t *testing.T) {
	iss := newTestIssuer(t, nil)
	doc, err := iss.Issue(t.Context(), testKey, testNonce)
	require.NoError(t, err)

	require.Equal(t, []byte{0xd2, 0x84}, doc[:2], "tag 18 around a 4-element array")
	var raw struct {
		_           struct{} `cbor:",toarray"`
		Protected   []byte
		Unprotected map[any]any
		Payload     []byte
		Signature   []byte
	}
	require.NoError(t, cbor.Unmarshal(doc[1:], &raw))
	require.Equal(t, []byte{0xa1, 0x01, 0x38, 0x22}, raw.Protected, "protected header {1: -35 (ES384)}")
	require.Empty(t, raw.Unprotected)
	require.Len(t, raw.Signature, 96, "ES384 r||s")

	// Keys appear in the NSM's order.
	last := -1
	for _, k := range []string{"module_id", "digest", "timestamp", "pcrs", "certificate", "cabundle", "public_key", "user_data", "nonce"} {
		i := bytes.Index(raw.Payload, []byte(k))
		require.Greater(t, i, last, k)
		last = i
	}
	var p struct {
		PCRs     map[uint][]byte `cbor:"pcrs"`
		CABundle [][]byte        `cbor:"cabundle"`
		UserData any             `cbor:"user_data"`
	}
	require.NoError(t, cbor.Unmarshal(raw.Payload, &p))
	require.Len(t, p.PCRs, numPCRs)
	require.Equal(t, [][]byte{iss.Root().Raw, iss.ca.inter.Raw}, p.CABundle, "cabundle is root first")
	require.Nil(t, p.UserData, "absent user_data is null")
	// PCR keys ascend: 0x00, 0x01, ... directly after the map head.
	i := bytes.Index(raw.Payload, []byte("pcrs")) + len("pcrs")
	require.Equal(t, byte(0xb0), raw.Payload[i], "map of 16")
	require.Equal(t, byte(0x00), raw.Payload[i+1])
	require.Equal(t, byte(0x01), raw.Payload[i+1+1+2+pcrSize])
}

var update = flag.Bool("update", false, "rewrite testdata/recorded_* from a fresh simulator")

// recordedTime is when testdata/recorded_doc.cbor was issued.
var recordedTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// A document recorded by an earlier build must keep validating: the format
// and the validator may not drift apart. Run with -update to re-record.
func TestRecordedDocument(t *testing.T) {
	docPath, rootPath := filepath.Join("testdata", "recorded_doc.cbor"), filepath.Join("testdata", "recorded_root.pem")
	if *update {
		dir := t.TempDir()
		iss := newIssuerIn(t, Config{Dir: dir, Now: func() time.Time { return recordedTime }})
		doc, err := iss.Issue(t.Context(), testKey, testNonce)
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(docPath, doc, 0o644))
		copyFile(t, RootPath(dir), rootPath)
	}
	doc, err := os.ReadFile(docPath)
	require.NoError(t, err)
	root, err := LoadRoot(rootPath)
	require.NoError(t, err)

	res, err := nitro.VerifyDocument(t.Context(), doc, testNonce, nitro.Config{
		Roots:          []*x509.Certificate{root},
		AllowedPCRs:    map[uint][][]byte{0: {defaultPCR(0)}},
		Now:            func() time.Time { return recordedTime.Add(time.Minute) },
		SimulatedRoots: true,
	})
	require.NoError(t, err)
	require.Equal(t, recordedTime, res.Timestamp)
	require.Equal(t, testKey, res.PublicKey)
	require.True(t, res.Simulated)
}
