//go:build cgo

package pkcs11

import (
	"context"

	"github.com/miekg/pkcs11"

	"github.com/opencustody/ocv/keyvault"
)

// ImportKEK stores value as the AES key ref, a token object like the ones
// CreateKey makes, so known-answer vectors can run through the Store.
func ImportKEK(ctx context.Context, s *Store, ref keyvault.KeyRef, value []byte) error {
	label := objectLabel(ref)
	return s.pool.do(ctx, func(ss *session) error {
		_, err := s.ctx.CreateObject(ss.h, []*pkcs11.Attribute{
			pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_SECRET_KEY),
			pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, pkcs11.CKK_AES),
			pkcs11.NewAttribute(pkcs11.CKA_TOKEN, true),
			pkcs11.NewAttribute(pkcs11.CKA_PRIVATE, true),
			pkcs11.NewAttribute(pkcs11.CKA_SENSITIVE, true),
			pkcs11.NewAttribute(pkcs11.CKA_EXTRACTABLE, false),
			pkcs11.NewAttribute(pkcs11.CKA_WRAP, true),
			pkcs11.NewAttribute(pkcs11.CKA_UNWRAP, true),
			pkcs11.NewAttribute(pkcs11.CKA_ID, label),
			pkcs11.NewAttribute(pkcs11.CKA_LABEL, label),
			pkcs11.NewAttribute(pkcs11.CKA_VALUE, value),
		})
		return err
	})
}

// BreakSessions closes every idle pooled session behind the pool's back, as
// a token reset would, and reports how many it closed.
func BreakSessions(s *Store) int {
	n := 0
	for range cap(s.pool.ch) {
		ss := <-s.pool.ch
		if ss.open {
			_ = s.ctx.CloseSession(ss.h)
			n++
		}
		s.pool.ch <- ss
	}
	return n
}

// PoolSize is the number of sessions s keeps.
func PoolSize(s *Store) int { return cap(s.pool.ch) }

// ImportHMACKey stores value as the HMACSHA256 key ref, a token object like
// the ones CreateKey makes, so known-answer vectors can run through MAC.
func ImportHMACKey(ctx context.Context, s *Store, ref keyvault.KeyRef, value []byte) error {
	label := objectLabel(ref)
	return s.pool.do(ctx, func(ss *session) error {
		_, err := s.ctx.CreateObject(ss.h, []*pkcs11.Attribute{
			pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_SECRET_KEY),
			pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, pkcs11.CKK_GENERIC_SECRET),
			pkcs11.NewAttribute(pkcs11.CKA_TOKEN, true),
			pkcs11.NewAttribute(pkcs11.CKA_PRIVATE, true),
			pkcs11.NewAttribute(pkcs11.CKA_SENSITIVE, true),
			pkcs11.NewAttribute(pkcs11.CKA_EXTRACTABLE, false),
			pkcs11.NewAttribute(pkcs11.CKA_SIGN, true),
			pkcs11.NewAttribute(pkcs11.CKA_VERIFY, true),
			pkcs11.NewAttribute(pkcs11.CKA_ID, label),
			pkcs11.NewAttribute(pkcs11.CKA_LABEL, label),
			pkcs11.NewAttribute(pkcs11.CKA_VALUE, value),
		})
		return err
	})
}

// FindKey looks ref up by C_FindObjects, bypassing the handle cache (the
// alternative to CheckKey that the benchmarks measure).
func FindKey(ctx context.Context, s *Store, ref keyvault.KeyRef) error {
	return s.pool.do(ctx, func(ss *session) error {
		hs, err := findHandles(s.ctx, ss.h, ref)
		if err == nil && len(hs) == 0 {
			err = keyvault.ErrKeyNotFound
		}
		return err
	})
}
