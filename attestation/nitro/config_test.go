package nitro

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestNewValidatorConfig(t *testing.T) {
	pki := newTestPKI(t, "config")
	tests := map[string]struct {
		cfg     Config
		wantErr error
	}{
		"ok AWS root by default": {cfg: Config{AllowedPCRs: map[uint][][]byte{0: {testPCR0}}}},
		"ok simulated": {cfg: Config{
			Roots: []*x509.Certificate{pki.root}, SimulatedRoots: true,
			AllowedPCRs: map[uint][][]byte{0: {testPCR0}, 8: {testPCR1}},
		}},
		// Fail closed: a validator that accepts any image is a misconfiguration.
		"fail no allowlist":      {cfg: Config{}, wantErr: ErrInvalidConfig},
		"fail PCR0 not listed":   {cfg: Config{AllowedPCRs: map[uint][][]byte{1: {testPCR1}}}, wantErr: ErrInvalidConfig},
		"fail PCR0 empty values": {cfg: Config{AllowedPCRs: map[uint][][]byte{0: {}}}, wantErr: ErrInvalidConfig},
		"fail PCR1 empty values": {cfg: Config{AllowedPCRs: map[uint][][]byte{0: {testPCR0}, 1: nil}}, wantErr: ErrInvalidConfig},
		"fail zero PCR0 allowed": {cfg: Config{AllowedPCRs: map[uint][][]byte{0: {make([]byte, pcrSize)}}}, wantErr: ErrInvalidConfig},
		"fail short value":       {cfg: Config{AllowedPCRs: map[uint][][]byte{0: {testPCR0[:32]}}}, wantErr: ErrInvalidConfig},
		"fail index 32":          {cfg: Config{AllowedPCRs: map[uint][][]byte{0: {testPCR0}, 32: {testPCR1}}}, wantErr: ErrInvalidConfig},
		"fail negative MaxAge":   {cfg: Config{AllowedPCRs: map[uint][][]byte{0: {testPCR0}}, MaxAge: -time.Second}, wantErr: ErrInvalidConfig},
		"fail nil root":          {cfg: Config{Roots: []*x509.Certificate{nil}, AllowedPCRs: map[uint][][]byte{0: {testPCR0}}}, wantErr: ErrInvalidConfig},
		// Simulated without roots would label real AWS documents "simulated".
		"fail simulated without roots": {cfg: Config{SimulatedRoots: true, AllowedPCRs: map[uint][][]byte{0: {testPCR0}}}, wantErr: ErrInvalidConfig},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			v, err := NewValidator(tc.cfg)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.NotNil(t, v)
			}
		})
	}
}

// The allowlist is copied: editing the caller's map later changes nothing.
func TestNewValidatorCopiesAllowlist(t *testing.T) {
	pki := newTestPKI(t, "copy")
	cfg := pki.testConfig()
	mine := append([]byte(nil), testPCR0...)
	cfg.AllowedPCRs[0] = [][]byte{mine}
	v, err := NewValidator(cfg)
	require.NoError(t, err)
	mine[0] ^= 0xff
	_, err = v.Validate(t.Context(), pki.sign(t, pki.payload()), testNonce)
	require.NoError(t, err)
}

func TestAWSRootFingerprint(t *testing.T) {
	root := AWSRoot()
	sum := sha256.Sum256(root.Raw)
	require.Equal(t, "641a0321a3e244efe456463195d606317ed7cdcc3c1756e09893f3c68f79bb5b", hex.EncodeToString(sum[:]))
	require.Equal(t, "aws.nitro-enclaves", root.Subject.CommonName)
	require.True(t, root.IsCA)
	require.NotSame(t, root, AWSRoot())
	require.True(t, strings.HasPrefix(string(awsRootPEM), "-----BEGIN CERTIFICATE-----"))
}
