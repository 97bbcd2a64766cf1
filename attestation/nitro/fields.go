package nitro

import (
	"fmt"
	"math"
)

// Limits from the AWS attestation document specification.
const (
	maxPCRs         = 32
	pcrSize         = 48 // SHA-384
	maxCertSize     = 1024
	maxPublicKey    = 1024
	maxUserData     = 512
	maxNonce        = 512
	wantDigest      = "SHA384"
	minCABundleSize = 1
)

// checkFields performs AWS's syntactic validation: every mandatory field is
// present and every field has an allowed size.
func checkFields(p payload) error {
	if p.ModuleID == "" {
		return fmt.Errorf("%w: empty module_id", ErrMalformed)
	}
	if p.Digest != wantDigest {
		return fmt.Errorf("%w: digest %q, want %s", ErrMalformed, p.Digest, wantDigest)
	}
	if p.Timestamp == 0 || p.Timestamp > math.MaxInt64 {
		return fmt.Errorf("%w: timestamp out of range", ErrMalformed)
	}
	if err := checkPCRFields(p.PCRs); err != nil {
		return err
	}
	if err := checkSize("certificate", p.Certificate, 1, maxCertSize); err != nil {
		return err
	}
	if len(p.CABundle) < minCABundleSize {
		return fmt.Errorf("%w: empty cabundle", ErrMalformed)
	}
	for i, c := range p.CABundle {
		if err := checkSize(fmt.Sprintf("cabundle[%d]", i), c, 1, maxCertSize); err != nil {
			return err
		}
	}
	if err := checkSize("public_key", p.PublicKey, 0, maxPublicKey); err != nil {
		return err
	}
	if err := checkSize("user_data", p.UserData, 0, maxUserData); err != nil {
		return err
	}
	return checkSize("nonce", p.Nonce, 0, maxNonce)
}

// checkPCRFields requires 1..32 PCRs, each indexed below 32 and 48 bytes long.
func checkPCRFields(pcrs map[uint][]byte) error {
	if len(pcrs) == 0 || len(pcrs) > maxPCRs {
		return fmt.Errorf("%w: %d PCRs", ErrMalformed, len(pcrs))
	}
	for idx, v := range pcrs {
		if idx >= maxPCRs {
			return fmt.Errorf("%w: PCR index %d out of range", ErrMalformed, idx)
		}
		if len(v) != pcrSize {
			return fmt.Errorf("%w: PCR %d is %d bytes, want %d", ErrMalformed, idx, len(v), pcrSize)
		}
	}
	return nil
}

func checkSize(name string, b []byte, minLen, maxLen int) error {
	if len(b) < minLen || len(b) > maxLen {
		return fmt.Errorf("%w: %s is %d bytes, want %d..%d", ErrMalformed, name, len(b), minLen, maxLen)
	}
	return nil
}
