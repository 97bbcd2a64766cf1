package nitro

import (
	"context"
	"fmt"
	"sync"

	"github.com/hf/nsm"
	"github.com/hf/nsm/request"
	"github.com/hf/nsm/response"

	"github.com/opencustody/ocv/attestation"
)

// nsmSession is the part of *nsm.Session the issuer uses; tests replace it.
type nsmSession interface {
	Send(req request.Request) (response.Response, error)
	Close() error
}

// NSMIssuer asks the Nitro Security Module (/dev/nsm) for attestation
// documents that bind the enclave's channel public key and the verifier's
// nonce. It only works inside a Nitro enclave: it is untested on non-Nitro
// hosts beyond its error paths and a fake device. It is safe for concurrent
// use; Close must not race with Issue and is serialised against it.
type NSMIssuer struct {
	mu   sync.RWMutex
	sess nsmSession // nil after Close
}

// NewNSMIssuer opens a session with the Nitro Security Module.
func NewNSMIssuer() (*NSMIssuer, error) {
	return newNSMIssuerWithOptions(nsm.DefaultOptions)
}

func newNSMIssuerWithOptions(opts nsm.Options) (*NSMIssuer, error) {
	sess, err := nsm.OpenSession(opts)
	if err != nil {
		return nil, fmt.Errorf("%w: opening NSM session: %w", ErrNSM, err)
	}
	return &NSMIssuer{sess: sess}, nil
}

// Issue requests a document with publicKey in public_key and nonce in nonce.
// The NSM call itself cannot be cancelled; ctx is checked before it.
func (i *NSMIssuer) Issue(ctx context.Context, publicKey, nonce []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("requesting attestation: %w", err)
	}
	i.mu.RLock()
	defer i.mu.RUnlock()
	if i.sess == nil {
		return nil, fmt.Errorf("%w: session closed", ErrNSM)
	}
	res, err := i.sess.Send(&request.Attestation{PublicKey: publicKey, Nonce: nonce})
	if err != nil {
		return nil, fmt.Errorf("%w: requesting attestation: %w", ErrNSM, err)
	}
	if res.Error != "" {
		return nil, fmt.Errorf("%w: requesting attestation: NSM error %s", ErrNSM, res.Error)
	}
	if res.Attestation == nil || len(res.Attestation.Document) == 0 {
		return nil, fmt.Errorf("%w: requesting attestation: empty document", ErrNSM)
	}
	return res.Attestation.Document, nil
}

// Close ends the NSM session. Later Issue calls fail with ErrNSM.
func (i *NSMIssuer) Close() error {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.sess == nil {
		return nil
	}
	err := i.sess.Close()
	i.sess = nil
	if err != nil {
		return fmt.Errorf("closing NSM session: %w", err)
	}
	return nil
}

var _ attestation.Issuer = (*NSMIssuer)(nil)
