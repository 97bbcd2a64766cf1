//go:build cgo

package pkcs11

import (
	"context"
	"fmt"

	"github.com/miekg/pkcs11"

	"github.com/opencustody/ocv/keyvault"
)

// classQuery reads one small attribute that every key object has.
var classQuery = []*pkcs11.Attribute{pkcs11.NewAttribute(pkcs11.CKA_CLASS, nil)}

// CheckKey reports whether ref still exists on the token (keyvault.KeyChecker).
//
// It asks the token, not the handle cache: C_GetAttributeValue(CKA_CLASS)
// on the cached handle. SoftHSM 2 with the file object store re-reads an
// object's file state on every attribute access, so an object destroyed by
// another session or another process answers CKR_OBJECT_HANDLE_INVALID on
// the very next call (measured in check_test.go, with the destroying
// process a separate one). That costs one attribute read (a few
// microseconds), against a C_FindObjects search that lists the token's
// whole object directory. A stale handle is forgotten and the key looked
// up once more by search, so a handle renumbered by the module is not
// mistaken for a destroyed key.
func (s *Store) CheckKey(ctx context.Context, ref keyvault.KeyRef) error {
	if err := checkRef(ref); err != nil {
		return err
	}
	err := s.withKey(ctx, ref, func(ss *session, e *keyEntry) error {
		_, err := s.ctx.GetAttributeValue(ss.h, e.key, classQuery)
		return err
	})
	if err != nil {
		return fmt.Errorf("checking %s: %w", objectLabel(ref), err)
	}
	return nil
}

// Interface guard.
var _ keyvault.KeyChecker = (*Store)(nil)
