//go:build cgo

package pkcs11

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/miekg/pkcs11"

	"github.com/opencustody/ocv/keyvault"
	"github.com/opencustody/ocv/keyvault/pkcs11/internal/module"
)

// session is one pooled PKCS#11 session. Its taker owns it exclusively until
// it goes back to the pool, so no two goroutines ever drive one session
// (PKCS#11 operations span calls: C_SignInit then C_Sign).
type session struct {
	h pkcs11.SessionHandle
	// open is false when the slot awaits a new session (after a fault).
	open bool
	// spoiled asks the pool to close this session on return, e.g. because
	// a temporary key object could not be destroyed: closing the session
	// destroys every session object on it.
	spoiled bool
}

// pool is a fixed set of R/W sessions on one token behind a buffered channel.
type pool struct {
	mod  *module.Module
	slot uint
	pin  string
	ch   chan *session
	done chan struct{}
	stop sync.Once
}

// newPool opens size sessions. It owns the module reference: close (also on
// failure here) releases it.
func newPool(mod *module.Module, slot uint, pin string, size int) (*pool, error) {
	p := &pool{
		mod:  mod,
		slot: slot,
		pin:  pin,
		ch:   make(chan *session, size),
		done: make(chan struct{}),
	}
	var err error
	for range size {
		s := &session{}
		if err == nil {
			err = p.open(s)
		}
		p.ch <- s
	}
	if err != nil {
		return nil, errors.Join(err, p.close())
	}
	return p, nil
}

// open opens a R/W session into s and logs the user in. Login state belongs
// to the token for the whole application, so every session after the first
// answers CKR_USER_ALREADY_LOGGED_IN, which is fine. Logging in again matters
// when every session of the application was closed (that logs the user out).
func (p *pool) open(s *session) error {
	h, err := p.mod.Ctx.OpenSession(p.slot, pkcs11.CKF_SERIAL_SESSION|pkcs11.CKF_RW_SESSION)
	if err != nil {
		return fmt.Errorf("opening session: %w", err)
	}
	if err := p.mod.Ctx.Login(h, pkcs11.CKU_USER, p.pin); err != nil && !rvIs(err, pkcs11.CKR_USER_ALREADY_LOGGED_IN) {
		_ = p.mod.Ctx.CloseSession(h)
		return fmt.Errorf("logging in: %w", err)
	}
	*s = session{h: h, open: true}
	return nil
}

func (p *pool) closed() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// get takes a session, waiting for one to be free.
func (p *pool) get(ctx context.Context) (*session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var s *session
	select {
	case <-p.done:
		return nil, keyvault.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	case s = <-p.ch:
	}
	if p.closed() { // Close is draining: hand the session to it.
		p.ch <- s
		return nil, keyvault.ErrClosed
	}
	if !s.open {
		if err := p.open(s); err != nil {
			p.ch <- s
			return nil, err
		}
	}
	return s, nil
}

// put returns a session after use. A session that saw a session or device
// fault, or was spoiled, is closed; its slot reopens on next use.
func (p *pool) put(s *session, opErr error) {
	if s.spoiled || (opErr != nil && isSessionFault(opErr)) {
		_ = p.mod.Ctx.CloseSession(s.h)
		*s = session{}
	}
	p.ch <- s
}

// do runs fn on a pooled session. After a session fault it retries on
// another session: the failed call did not take effect on the token. Each
// fault discards the session it hit, so after a token reset (every session
// dead) at most one try per pooled session fails before a fresh one serves.
func (p *pool) do(ctx context.Context, fn func(s *session) error) error {
	var err error
	for range cap(p.ch) + 1 {
		if err = p.once(ctx, fn); err == nil || !isSessionFault(err) {
			return err
		}
	}
	return err
}

// once runs fn on a pooled session without retrying; for operations that
// must not run twice (key generation).
func (p *pool) once(ctx context.Context, fn func(s *session) error) error {
	s, err := p.get(ctx)
	if err != nil {
		return err
	}
	err = fn(s)
	p.put(s, err)
	return err
}

// close waits for every session to come back, closes them all and releases
// the module. Later gets answer keyvault.ErrClosed. Close is idempotent.
func (p *pool) close() error {
	var err error
	p.stop.Do(func() {
		close(p.done)
		for range cap(p.ch) {
			if s := <-p.ch; s.open {
				if cerr := p.mod.Ctx.CloseSession(s.h); cerr != nil && !rvIs(cerr, pkcs11.CKR_SESSION_HANDLE_INVALID) {
					err = errors.Join(err, fmt.Errorf("closing session: %w", cerr))
				}
			}
		}
		err = errors.Join(err, p.mod.Release())
	})
	return err
}
