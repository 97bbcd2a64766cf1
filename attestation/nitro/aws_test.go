package nitro

import (
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// awsDoc is a real attestation document produced by a Nitro enclave in
// us-east-1 on 2022-09-15 and published as public test data. It is stored
// untagged, as it was recorded, and chains to the AWS root.
const awsDocPath = "testdata/aws_nitro_2022-09-15.cbor"

var (
	awsDocTime  = time.Date(2022, 9, 15, 17, 43, 28, 848_000_000, time.UTC)
	awsDocNonce = mustHex("47b5fba6979cbf7e567e2629")
	awsDocPCR0  = mustHex("ea4212ee889ba1b4dbfe744aadecca8b1930de60a3a1ce3b0c79f42b231700fc561c3d9b34f0565ed9eb6f460996624c")
	awsDocKey   = mustHex("15db1c67adc9fce91f7da323c708b6e639f0585af8a4a091127f2dfdcfeaf808")
)

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func awsConfig() Config {
	return Config{
		AllowedPCRs: map[uint][][]byte{0: {awsDocPCR0}},
		Now:         func() time.Time { return awsDocTime.Add(30 * time.Second) },
	}
}

// Known answer: AWS's own document verifies against the embedded AWS root.
func TestAWSDocumentKnownAnswer(t *testing.T) {
	doc, err := os.ReadFile(awsDocPath)
	require.NoError(t, err)

	res, err := VerifyDocument(t.Context(), doc, awsDocNonce, awsConfig())
	require.NoError(t, err)
	require.Equal(t, "i-0697c9729fa547b20-enc0183422ede9a5dc8", res.ModuleID)
	require.Equal(t, awsDocTime, res.Timestamp)
	require.Equal(t, awsDocKey, res.PublicKey)
	require.Len(t, res.PCRs, 16)
	require.Len(t, res.UserData, 250)
	require.False(t, res.Simulated)
}

func TestAWSDocumentRejections(t *testing.T) {
	doc, err := os.ReadFile(awsDocPath)
	require.NoError(t, err)
	tests := map[string]struct {
		cfg     func(c *Config)
		doc     []byte
		nonce   []byte
		wantErr error
	}{
		"fail stale today": {cfg: func(c *Config) { c.Now = time.Now }, wantErr: ErrStale},
		"fail other root": {
			cfg:     func(c *Config) { c.Roots = newTestPKI(t, "not-aws").testConfig().Roots },
			wantErr: ErrUntrustedChain,
		},
		"fail wrong nonce": {nonce: []byte("another nonce"), wantErr: ErrNonceMismatch},
		"fail PCR0":        {cfg: func(c *Config) { c.AllowedPCRs[0] = [][]byte{testPCR0} }, wantErr: ErrPCRMismatch},
		// Flip one byte inside user_data: the structure stays valid, the signature must not.
		"fail tampered": {doc: flipByte(doc, len(doc)-200), wantErr: ErrBadSignature},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			cfg := awsConfig()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			d, nonce := doc, awsDocNonce
			if tc.doc != nil {
				d = tc.doc
			}
			if tc.nonce != nil {
				nonce = tc.nonce
			}
			_, err := VerifyDocument(t.Context(), d, nonce, cfg)
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
}

func flipByte(b []byte, i int) []byte {
	out := append([]byte(nil), b...)
	out[i] ^= 0x01
	return out
}
