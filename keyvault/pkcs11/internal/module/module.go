//go:build cgo

package module

import (
	"errors"
	"fmt"
	"sync"

	"github.com/miekg/pkcs11"
)

// Module is one PKCS#11 library shared by every user in the process. Ctx is
// safe for concurrent use (the library is initialised with CKF_OS_LOCKING_OK).
type Module struct {
	Ctx  *pkcs11.Ctx
	path string
	// mu serialises token initialisation: two concurrent InitToken calls
	// must not pick the same free slot.
	mu sync.Mutex
}

type entry struct {
	mod  *Module
	refs int
	// owned is false when someone else in the process had already
	// initialised the library; then we never finalise it.
	owned bool
}

var (
	registryMu sync.Mutex
	// loaded keeps every library ever loaded: libraries are never unloaded
	// (dlclose of a library linked against OpenSSL is not reliably safe), only
	// finalised when unused.
	loaded = map[string]*Module{}
	inUse  = map[string]*entry{}
)

// Acquire loads and initialises the library at path, or takes another
// reference to it. Every successful Acquire must be paired with one Release.
func Acquire(path string) (*Module, error) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if e, ok := inUse[path]; ok {
		e.refs++
		return e.mod, nil
	}
	mod, ok := loaded[path]
	if !ok {
		ctx := pkcs11.New(path)
		if ctx == nil {
			return nil, fmt.Errorf("loading pkcs11 module %q: cannot open library", path)
		}
		mod = &Module{Ctx: ctx, path: path}
		loaded[path] = mod
	}
	owned := true
	if err := mod.Ctx.Initialize(); err != nil {
		if !errors.Is(err, pkcs11.Error(pkcs11.CKR_CRYPTOKI_ALREADY_INITIALIZED)) {
			return nil, fmt.Errorf("initialising pkcs11 module %q: %w", path, err)
		}
		owned = false
	}
	inUse[path] = &entry{mod: mod, refs: 1, owned: owned}
	return mod, nil
}

// Release drops one reference; the last one finalises the library (which
// also closes any session still open).
func (m *Module) Release() error {
	registryMu.Lock()
	defer registryMu.Unlock()
	e, ok := inUse[m.path]
	if !ok || e.mod != m {
		return nil
	}
	e.refs--
	if e.refs > 0 {
		return nil
	}
	delete(inUse, m.path)
	if !e.owned {
		return nil
	}
	if err := m.Ctx.Finalize(); err != nil {
		return fmt.Errorf("finalising pkcs11 module %q: %w", m.path, err)
	}
	return nil
}

// Initialised reports whether the library at path is currently initialised
// by this package (some Acquire is not yet released).
func Initialised(path string) bool {
	registryMu.Lock()
	defer registryMu.Unlock()
	_, ok := inUse[path]
	return ok
}

// InitToken initialises a free token of the library at path with label, a
// security officer PIN and a user PIN, inside this process. SoftHSM reads its
// token directory at C_Initialize only, so a token made by softhsm2-util while
// the library is initialised here would stay invisible; a token initialised
// through the library itself is visible at once, and SoftHSM then offers a
// new free slot.
func InitToken(path, label, soPIN, userPIN string) (err error) {
	m, err := Acquire(path)
	if err != nil {
		return err
	}
	defer func() {
		if rerr := m.Release(); err == nil {
			err = rerr
		}
	}()
	m.mu.Lock()
	defer m.mu.Unlock()

	slot, err := m.freeSlot()
	if err != nil {
		return err
	}
	if err := m.Ctx.InitToken(slot, soPIN, label); err != nil {
		return fmt.Errorf("initialising token: %w", err)
	}
	sh, err := m.Ctx.OpenSession(slot, pkcs11.CKF_SERIAL_SESSION|pkcs11.CKF_RW_SESSION)
	if err != nil {
		return fmt.Errorf("opening security officer session: %w", err)
	}
	defer func() { _ = m.Ctx.CloseSession(sh) }()
	if err := m.Ctx.Login(sh, pkcs11.CKU_SO, soPIN); err != nil {
		return fmt.Errorf("logging in as security officer: %w", err)
	}
	if err := m.Ctx.InitPIN(sh, userPIN); err != nil {
		return fmt.Errorf("setting user pin: %w", err)
	}
	if err := m.Ctx.Logout(sh); err != nil {
		return fmt.Errorf("logging out security officer: %w", err)
	}
	return nil
}

func (m *Module) freeSlot() (uint, error) {
	slots, err := m.Ctx.GetSlotList(true)
	if err != nil {
		return 0, fmt.Errorf("listing slots: %w", err)
	}
	for _, s := range slots {
		ti, err := m.Ctx.GetTokenInfo(s)
		if err != nil {
			return 0, fmt.Errorf("reading token info of slot %d: %w", s, err)
		}
		if ti.Flags&pkcs11.CKF_TOKEN_INITIALIZED == 0 {
			return s, nil
		}
	}
	return 0, errors.New("finding a free slot: every token is initialised")
}
