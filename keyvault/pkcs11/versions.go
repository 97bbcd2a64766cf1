//go:build cgo

package pkcs11

import (
	"context"
	"fmt"
	"slices"

	"github.com/miekg/pkcs11"
)

// Versions lists the versions stored under id, ascending. It reads the label
// of every token object: a start-up path, not a hot one.
func (s *Store) Versions(ctx context.Context, id string) ([]uint32, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	var labels []string
	err := s.pool.do(ctx, func(ss *session) error {
		labels = labels[:0]
		hs, err := allTokenObjects(s.ctx, ss.h)
		if err != nil {
			return err
		}
		for _, h := range hs {
			attrs, err := s.ctx.GetAttributeValue(ss.h, h, []*pkcs11.Attribute{pkcs11.NewAttribute(pkcs11.CKA_LABEL, nil)})
			switch {
			case isHandleInvalid(err): // destroyed meanwhile
			case err != nil:
				return fmt.Errorf("reading object label: %w", err)
			default:
				labels = append(labels, string(attrs[0].Value))
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing versions of %q: %w", id, err)
	}
	return versionsFromLabels(id, labels), nil
}

func allTokenObjects(ctx *pkcs11.Ctx, sh pkcs11.SessionHandle) ([]pkcs11.ObjectHandle, error) {
	if err := ctx.FindObjectsInit(sh, []*pkcs11.Attribute{pkcs11.NewAttribute(pkcs11.CKA_TOKEN, true)}); err != nil {
		return nil, fmt.Errorf("finding objects: %w", err)
	}
	var all []pkcs11.ObjectHandle
	for {
		hs, _, err := ctx.FindObjects(sh, 256)
		if err != nil {
			_ = ctx.FindObjectsFinal(sh)
			return nil, fmt.Errorf("finding objects: %w", err)
		}
		if len(hs) == 0 {
			break
		}
		all = append(all, hs...)
	}
	if err := ctx.FindObjectsFinal(sh); err != nil {
		return nil, fmt.Errorf("finding objects: %w", err)
	}
	return slices.Clip(all), nil
}
