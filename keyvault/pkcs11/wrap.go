//go:build cgo

package pkcs11

import (
	"context"
	"fmt"

	"github.com/miekg/pkcs11"

	"github.com/opencustody/ocv/keyvault"
)

// Key wrap on SoftHSM 2.6.1 (measured): CKM_AES_KEY_WRAP is refused for
// C_Encrypt/C_Decrypt (CKR_MECHANISM_INVALID), so a data key travels as a
// short-lived session object: C_CreateObject + C_WrapKey + C_DestroyObject,
// and C_UnwrapKey + C_GetAttributeValue(CKA_VALUE) + C_DestroyObject. The
// KEK never leaves the token. Templates and mechanisms are built once;
// miekg/pkcs11 only reads them.
var (
	mechKeyWrap = []*pkcs11.Mechanism{pkcs11.NewMechanism(pkcs11.CKM_AES_KEY_WRAP, nil)}

	// dekTemplate describes the temporary data-key object: a session
	// object (gone with the session at the latest), readable, so the
	// unwrapped value can be returned. CKA_PRIVATE false spares SoftHSM
	// from encrypting the value in memory; the caller holds it in plain
	// anyway.
	dekTemplate = []*pkcs11.Attribute{
		pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_SECRET_KEY),
		pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, pkcs11.CKK_GENERIC_SECRET),
		pkcs11.NewAttribute(pkcs11.CKA_TOKEN, false),
		pkcs11.NewAttribute(pkcs11.CKA_PRIVATE, false),
		pkcs11.NewAttribute(pkcs11.CKA_SENSITIVE, false),
		pkcs11.NewAttribute(pkcs11.CKA_EXTRACTABLE, true),
	}
	valueQuery = []*pkcs11.Attribute{pkcs11.NewAttribute(pkcs11.CKA_VALUE, nil)}
)

// WrapKey wraps dek (16, 24 or 32 bytes) under the AES-256 key kek with RFC
// 3394 AES key wrap, inside the token.
func (s *Store) WrapKey(ctx context.Context, kek keyvault.KeyRef, dek []byte) ([]byte, error) {
	if err := checkRef(kek); err != nil {
		return nil, err
	}
	switch len(dek) {
	case 16, 24, 32:
	default:
		return nil, fmt.Errorf("wrapping data key: %w: %d bytes", ErrInvalidLength, len(dek))
	}
	var wrapped []byte
	err := s.withKey(ctx, kek, func(ss *session, e *keyEntry) error {
		if e.alg != keyvault.AES256 {
			return fmt.Errorf("%w: %s is a %s key", keyvault.ErrUnsupported, objectLabel(kek), e.alg)
		}
		tmpl := make([]*pkcs11.Attribute, len(dekTemplate), len(dekTemplate)+1)
		copy(tmpl, dekTemplate)
		tmpl = append(tmpl, &pkcs11.Attribute{Type: pkcs11.CKA_VALUE, Value: dek})
		h, err := s.ctx.CreateObject(ss.h, tmpl)
		if err != nil {
			return fmt.Errorf("creating data key object: %w", err)
		}
		wrapped, err = s.ctx.WrapKey(ss.h, mechKeyWrap, e.key, h)
		if derr := s.ctx.DestroyObject(ss.h, h); derr != nil {
			ss.spoiled = true // closing the session destroys the object
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("wrapping data key under %s: %w", objectLabel(kek), err)
	}
	return wrapped, nil
}

// UnwrapKey reverses WrapKey. A wrapped key that fails the integrity check
// (or has an impossible length) gives an error wrapping keyvault.ErrUnwrap.
func (s *Store) UnwrapKey(ctx context.Context, kek keyvault.KeyRef, wrapped []byte) ([]byte, error) {
	if err := checkRef(kek); err != nil {
		return nil, err
	}
	switch len(wrapped) {
	case 24, 32, 40:
	default:
		return nil, fmt.Errorf("unwrapping data key: %w: %d bytes", keyvault.ErrUnwrap, len(wrapped))
	}
	var dek []byte
	err := s.withKey(ctx, kek, func(ss *session, e *keyEntry) error {
		if e.alg != keyvault.AES256 {
			return fmt.Errorf("%w: %s is a %s key", keyvault.ErrUnsupported, objectLabel(kek), e.alg)
		}
		h, err := s.ctx.UnwrapKey(ss.h, mechKeyWrap, e.key, wrapped, dekTemplate)
		if err != nil {
			if isUnwrapFailure(err) {
				return fmt.Errorf("%w: %w", keyvault.ErrUnwrap, err)
			}
			return err
		}
		attrs, err := s.ctx.GetAttributeValue(ss.h, h, valueQuery)
		if derr := s.ctx.DestroyObject(ss.h, h); derr != nil {
			ss.spoiled = true // closing the session destroys the object
		}
		if err != nil {
			return fmt.Errorf("reading data key: %w", err)
		}
		dek = attrs[0].Value
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("unwrapping data key under %s: %w", objectLabel(kek), err)
	}
	return dek, nil
}
