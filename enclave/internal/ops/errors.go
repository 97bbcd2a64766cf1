package ops

import (
	"context"
	"errors"
	"fmt"

	"github.com/opencustody/ocv/enclave/internal/envelope"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/keyvault"
)

// ErrInvalidConfig is a Config that New refuses.
var ErrInvalidConfig = errors.New("ops: invalid config")

// errBadSignature is an HSM signature that does not verify under the key's
// own public key (a faulty or tampered HSM): it is never handed out.
var errBadSignature = errors.New("ops: key store produced an invalid signature")

// toWire wraps err with the wire sentinel its cause maps to, keeping the
// cause for the enclave's own logs. The order matters: integrity failures
// first, because an Open failure must say nothing more.
func toWire(err error) error {
	if err == nil {
		return nil
	}
	var sentinel error
	switch {
	case wire.CodeOf(err) != wire.Internal || errors.Is(err, wire.ErrInternal):
		return err
	case errors.Is(err, envelope.ErrKEKDestroyed):
		sentinel = wire.ErrKEKDestroyed
	case errors.Is(err, envelope.ErrIntegrity), errors.Is(err, envelope.ErrUnsupportedFormat),
		errors.Is(err, keyvault.ErrUnwrap):
		sentinel = wire.ErrIntegrity
	case errors.Is(err, envelope.ErrInvalidLocator):
		sentinel = wire.ErrBadRequest
	case errors.Is(err, keyvault.ErrKeyNotFound):
		sentinel = wire.ErrNotFound
	case errors.Is(err, keyvault.ErrClosed), errors.Is(err, context.Canceled),
		errors.Is(err, context.DeadlineExceeded):
		sentinel = wire.ErrUnavailable
	case errors.Is(err, keyvault.ErrAlreadyExists), errors.Is(err, keyvault.ErrUnsupported),
		errors.Is(err, errBadSignature):
		sentinel = wire.ErrInternal
	default:
		// Anything else came out of the key store (a PKCS#11 failure, a
		// lost session): the HSM is what is unavailable.
		sentinel = wire.ErrUnavailable
	}
	return fmt.Errorf("%w: %w", sentinel, err)
}

func isInvalidKey(err error) bool { return errors.Is(err, keyvault.ErrInvalidKey) }

func isAlreadyExists(err error) bool { return errors.Is(err, keyvault.ErrAlreadyExists) }
