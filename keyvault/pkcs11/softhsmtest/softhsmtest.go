//go:build cgo

package softhsmtest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/opencustody/ocv/keyvault/pkcs11"
	"github.com/opencustody/ocv/keyvault/pkcs11/internal/module"
)

// DefaultModulePath is where Debian's softhsm2 package installs the module.
const DefaultModulePath = "/usr/lib/softhsm/libsofthsm2.so"

// ModuleEnv names an environment variable that overrides DefaultModulePath.
const ModuleEnv = "OCV_SOFTHSM2_MODULE"

var (
	mu   sync.Mutex
	dir  string // process-wide token directory and config; "" before first use
	live int    // tests that hold a token and have not finished
)

// New initialises a new token with a unique label and random PINs and
// returns a Config for it. It fails the test when the SoftHSM2 module is
// missing. Several tokens (and Stores) may live at once in one process.
func New(t testing.TB) pkcs11.Config {
	t.Helper()
	modulePath := os.Getenv(ModuleEnv)
	if modulePath == "" {
		modulePath = DefaultModulePath
	}
	if _, err := os.Stat(modulePath); err != nil {
		t.Fatalf("softhsmtest: SoftHSM2 module missing (install softhsm2 or set %s): %v", ModuleEnv, err)
	}

	mu.Lock()
	defer mu.Unlock()
	if dir == "" {
		if err := setUp(); err != nil {
			t.Fatalf("softhsmtest: %v", err)
		}
	}
	label := "ocvtest-" + randomHex(6)
	soPIN, userPIN := randomHex(16), randomHex(16)
	if err := module.InitToken(modulePath, label, soPIN, userPIN); err != nil {
		t.Fatalf("softhsmtest: initialising token: %v", err)
	}
	live++
	t.Cleanup(func() { finish(modulePath) })
	return pkcs11.Config{ModulePath: modulePath, TokenLabel: label, PIN: userPIN}
}

// setUp makes the token directory and config and points SOFTHSM2_CONF at
// it. Called with mu held, while the module is not initialised.
func setUp() error {
	d, err := os.MkdirTemp("", "ocv-softhsm-")
	if err != nil {
		return fmt.Errorf("making token directory: %w", err)
	}
	tokens := filepath.Join(d, "tokens")
	if err := os.Mkdir(tokens, 0o700); err != nil {
		return fmt.Errorf("making token directory: %w", err)
	}
	conf := filepath.Join(d, "softhsm2.conf")
	body := "directories.tokendir = " + tokens + "\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n"
	if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
		return fmt.Errorf("writing softhsm2.conf: %w", err)
	}
	if err := os.Setenv("SOFTHSM2_CONF", conf); err != nil {
		return fmt.Errorf("setting SOFTHSM2_CONF: %w", err)
	}
	dir = d
	return nil
}

// finish runs when a test that made a token ends. When no test holds a
// token and no Store holds the module, the directory goes: the next New
// starts afresh (SoftHSM will read the new config at its next C_Initialize).
// A Store left open keeps the directory for the rest of the process.
func finish(modulePath string) {
	mu.Lock()
	defer mu.Unlock()
	live--
	if live > 0 || dir == "" || module.Initialised(modulePath) {
		return
	}
	_ = os.RemoveAll(dir)
	dir = ""
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
