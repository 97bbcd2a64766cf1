package nitro

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/x509"
	"fmt"

	"github.com/veraison/go-cose"
)

// verifySignature checks the COSE_Sign1 ES384 signature with the leaf
// certificate's P-384 key. No external AAD is used, as on Nitro.
func verifySignature(msg *cose.Sign1Message, leaf *x509.Certificate) error {
	pub, ok := leaf.PublicKey.(*ecdsa.PublicKey)
	if !ok || pub.Curve != elliptic.P384() {
		return fmt.Errorf("%w: leaf key is not ECDSA P-384", ErrBadSignature)
	}
	verifier, err := cose.NewVerifier(cose.AlgorithmES384, pub)
	if err != nil {
		return fmt.Errorf("%w: creating verifier: %w", ErrBadSignature, err)
	}
	if err := msg.Verify(nil, verifier); err != nil {
		return fmt.Errorf("%w: %w", ErrBadSignature, err)
	}
	return nil
}
