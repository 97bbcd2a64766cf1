//go:build cgo

package pkcs11

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/miekg/pkcs11"

	"github.com/opencustody/ocv/keyvault"
)

// registerApplication is the CKA_APPLICATION of every register object, and
// registerLabelPrefix starts its CKA_LABEL ("ocv-reg:<name>").
const (
	registerApplication = "ocv-register"
	registerLabelPrefix = "ocv-reg:"
)

// findRegister returns the data objects that hold register name (normally
// one; two after two processes created it at once).
func (s *Store) findRegister(ss *session, name string) ([]pkcs11.ObjectHandle, error) {
	tmpl := []*pkcs11.Attribute{
		pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_DATA),
		pkcs11.NewAttribute(pkcs11.CKA_TOKEN, true),
		pkcs11.NewAttribute(pkcs11.CKA_LABEL, registerLabelPrefix+name),
	}
	if err := s.ctx.FindObjectsInit(ss.h, tmpl); err != nil {
		return nil, fmt.Errorf("finding register: %w", err)
	}
	hs, _, err := s.ctx.FindObjects(ss.h, 8)
	if ferr := s.ctx.FindObjectsFinal(ss.h); err == nil && ferr != nil {
		err = ferr
	}
	if err != nil {
		return nil, fmt.Errorf("finding register: %w", err)
	}
	return hs, nil
}

// regObject is one data object of a register: its generation (CKA_OBJECT_ID, an
// 8-byte big-endian counter) and value.
type regObject struct {
	h     pkcs11.ObjectHandle
	gen   uint64
	value []byte
}

// readRegister reads every object of register name. SoftHSM does not let a
// data object's value change, so each write creates the next generation
// and then destroys the older ones: a reader that finds more than one
// takes the newest.
func (s *Store) readRegister(ss *session, name string) ([]regObject, error) {
	hs, err := s.findRegister(ss, name)
	if err != nil {
		return nil, err
	}
	out := make([]regObject, 0, len(hs))
	for _, h := range hs {
		attrs, err := s.ctx.GetAttributeValue(ss.h, h, []*pkcs11.Attribute{
			pkcs11.NewAttribute(pkcs11.CKA_OBJECT_ID, nil),
			pkcs11.NewAttribute(pkcs11.CKA_VALUE, nil),
		})
		if isHandleInvalid(err) { // destroyed by a writer meanwhile
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading register %s: %w", name, err)
		}
		if len(attrs[0].Value) != 8 {
			return nil, fmt.Errorf("register %s has an object without a generation", name)
		}
		out = append(out, regObject{h: h, gen: binary.BigEndian.Uint64(attrs[0].Value), value: attrs[1].Value})
	}
	return out, nil
}

// newest picks the object of the highest generation; two of the same
// (two writers at once) are refused until the next write repairs them.
func newest(name string, objs []regObject) (regObject, error) {
	var top regObject
	tie := false
	for _, o := range objs {
		switch {
		case o.gen > top.gen:
			top, tie = o, false
		case o.gen == top.gen:
			tie = true
		}
	}
	if tie {
		return regObject{}, fmt.Errorf("register %s: two values of generation %d", name, top.gen)
	}
	return top, nil
}

// ReadRegister returns the value of register name, kept on the token as
// private data objects.
func (s *Store) ReadRegister(ctx context.Context, name string) ([]byte, error) {
	if err := checkID(name); err != nil {
		return nil, err
	}
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	var value []byte
	err := s.pool.do(ctx, func(ss *session) error {
		objs, err := s.readRegister(ss, name)
		if err != nil {
			return err
		}
		if len(objs) == 0 {
			return fmt.Errorf("register %s: %w", name, keyvault.ErrKeyNotFound)
		}
		top, err := newest(name, objs)
		value = top.value
		return err
	})
	return value, err
}

// WriteRegister sets register name: it creates the next generation's
// object, then destroys the older ones, so a reader never finds the
// register missing.
func (s *Store) WriteRegister(ctx context.Context, name string, value []byte) error {
	if err := checkID(name); err != nil {
		return err
	}
	if len(value) > keyvault.MaxRegisterLen {
		return fmt.Errorf("%w: register value of %d bytes", ErrInvalidKeyRef, len(value))
	}
	if err := s.checkOpen(); err != nil {
		return err
	}
	s.regMu.Lock()
	defer s.regMu.Unlock()
	return s.pool.once(ctx, func(ss *session) error {
		objs, err := s.readRegister(ss, name)
		if err != nil {
			return err
		}
		var gen uint64
		for _, o := range objs {
			gen = max(gen, o.gen)
		}
		_, err = s.ctx.CreateObject(ss.h, []*pkcs11.Attribute{
			pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_DATA),
			pkcs11.NewAttribute(pkcs11.CKA_TOKEN, true),
			pkcs11.NewAttribute(pkcs11.CKA_PRIVATE, true),
			pkcs11.NewAttribute(pkcs11.CKA_LABEL, registerLabelPrefix+name),
			pkcs11.NewAttribute(pkcs11.CKA_APPLICATION, registerApplication),
			pkcs11.NewAttribute(pkcs11.CKA_OBJECT_ID, binary.BigEndian.AppendUint64(nil, gen+1)),
			pkcs11.NewAttribute(pkcs11.CKA_VALUE, value),
		})
		if err != nil {
			return fmt.Errorf("writing register %s: %w", name, err)
		}
		for _, o := range objs {
			if err := s.ctx.DestroyObject(ss.h, o.h); err != nil && !isHandleInvalid(err) {
				return fmt.Errorf("retiring register %s generation %d: %w", name, o.gen, err)
			}
		}
		return nil
	})
}

var _ keyvault.RegisterStore = (*Store)(nil)
