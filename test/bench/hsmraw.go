package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/opencustody/ocv/keyvault"
	"github.com/opencustody/ocv/keyvault/pkcs11"
)

// The hsmraw scenario measures the ceiling the signing scenarios are read
// against: how fast SoftHSM2 itself signs secp256k1 digests through the
// same PKCS#11 layer the enclave uses, with two sessions, inside this
// process. It needs no running stack.

// Settings of the hsmraw scenario.
const (
	// defaultSoftHSMModule is where Debian's softhsm2 package installs the module.
	defaultSoftHSMModule = "/usr/lib/softhsm/libsofthsm2.so"
	// hsmSessions is the session pool size the ratio target is
	// stated against.
	hsmSessions = 2
	// hsmTokenLabel names the throw-away token; it lives alone in a private
	// token directory, so the label cannot meet another token.
	hsmTokenLabel = "bench"
	// hsmScenarioName is the name hsmraw carries in the report.
	hsmScenarioName = "hsm-raw-secp256k1"
)

// hsmKeyRef is the one key hsmraw signs with.
var hsmKeyRef = keyvault.KeyRef{ID: "bench/secp256k1", Version: 1}

// hsmBench is an open private SoftHSM2 token with one secp256k1 key.
type hsmBench struct {
	dir    string // token directory and softhsm2.conf; removed by Close
	store  *pkcs11.Store
	signer keyvault.DigestSigner
	base   [32]byte // digest template; each operation stamps its number in
	seq    atomic.Uint64
}

// softhsmConf is the text of a softhsm2.conf that keeps tokens in tokenDir.
func softhsmConf(tokenDir string) string {
	return "directories.tokendir = " + tokenDir + "\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n"
}

// openHSM makes a private token directory and softhsm2.conf under a new
// temp dir, points SOFTHSM2_CONF at it, initialises a token there with
// softhsm2-util and random PINs, opens it through keyvault/pkcs11 with two
// sessions and creates the secp256k1 key.
//
// SOFTHSM2_CONF is process-wide and SoftHSM reads it once, at the first
// C_Initialize: openHSM must run before anything else in the process opens
// the module, and at most once per process.
func openHSM(ctx context.Context, modulePath string) (_ *hsmBench, err error) {
	if _, err := os.Stat(modulePath); err != nil {
		return nil, fmt.Errorf("%w: SoftHSM2 module missing (install softhsm2 or pass -softhsm-module): %w", ErrHSM, err)
	}
	dir, err := os.MkdirTemp("", "ocv-bench-softhsm-")
	if err != nil {
		return nil, fmt.Errorf("making token directory: %w", err)
	}
	h := &hsmBench{dir: dir}
	defer func() {
		if err != nil {
			err = errors.Join(err, h.Close())
		}
	}()
	tokens := filepath.Join(dir, "tokens")
	if err := os.Mkdir(tokens, 0o700); err != nil {
		return nil, fmt.Errorf("making token directory: %w", err)
	}
	conf := filepath.Join(dir, "softhsm2.conf")
	if err := os.WriteFile(conf, []byte(softhsmConf(tokens)), 0o600); err != nil {
		return nil, fmt.Errorf("writing softhsm2.conf: %w", err)
	}
	// Only this process (and the softhsm2-util it starts) sees the private
	// config; the stack's token is never touched.
	if err := os.Setenv("SOFTHSM2_CONF", conf); err != nil {
		return nil, fmt.Errorf("setting SOFTHSM2_CONF: %w", err)
	}
	pin := randomHex(16)
	if err := initToken(ctx, modulePath, pin, randomHex(16)); err != nil {
		return nil, err
	}
	h.store, err = pkcs11.New(ctx, pkcs11.Config{ModulePath: modulePath, TokenLabel: hsmTokenLabel, PIN: pin, PoolSize: hsmSessions})
	if err != nil {
		return nil, fmt.Errorf("%w: opening the bench token: %w", ErrHSM, err)
	}
	if _, err := h.store.CreateKey(ctx, keyvault.CreateKeyRequest{Ref: hsmKeyRef, Algorithm: keyvault.Secp256k1}); err != nil {
		return nil, fmt.Errorf("%w: creating the secp256k1 key: %w", ErrHSM, err)
	}
	if h.signer, err = h.store.Signer(ctx, hsmKeyRef); err != nil {
		return nil, fmt.Errorf("%w: opening the secp256k1 signer: %w", ErrHSM, err)
	}
	_, _ = rand.Read(h.base[:]) // crypto/rand.Read never fails (Go 1.24+)
	// One signature before the clock starts: a broken setup fails here,
	// not as a column of errors.
	if err := h.sign(ctx); err != nil {
		return nil, fmt.Errorf("%w: checking the bench token: %w", ErrHSM, err)
	}
	return h, nil
}

// initToken initialises the free token of the private directory with
// softhsm2-util. The PINs are on its command line for the moment it runs:
// acceptable for a throw-away token in a directory only this user reads.
func initToken(ctx context.Context, modulePath, pin, soPIN string) error {
	util, err := exec.LookPath("softhsm2-util")
	if err != nil {
		return fmt.Errorf("%w: softhsm2-util not found (install softhsm2): %w", ErrHSM, err)
	}
	cmd := exec.CommandContext(ctx, util, "--init-token", "--free", "--label", hsmTokenLabel,
		"--pin", pin, "--so-pin", soPIN, "--module", modulePath)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w: softhsm2-util --init-token: %w: %s", ErrHSM, err, strings.TrimSpace(out.String()))
	}
	return nil
}

// sign signs the next distinct 32-byte digest and checks the signature's
// size (raw r‖s); verifying it would spend the bench's CPU, and keyvault's
// own tests check signatures round-trip.
func (h *hsmBench) sign(ctx context.Context) error {
	d := h.base
	binary.BigEndian.PutUint64(d[:8], h.seq.Add(1))
	sig, err := h.signer.SignDigest(ctx, d[:])
	if err != nil {
		return fmt.Errorf("signing a digest: %w", err)
	}
	if len(sig) != 64 {
		return fmt.Errorf("%w: %d bytes, want 64", ErrBadSignature, len(sig))
	}
	return nil
}

// scenario is the hsmraw scenario: every operation signs one digest.
func (h *hsmBench) scenario() scenario {
	return scenario{
		name:  hsmScenarioName,
		local: func(ctx context.Context, _, _, _ int) error { return h.sign(ctx) },
	}
}

// Close closes the token and removes its directory.
func (h *hsmBench) Close() error {
	var err error
	if h.store != nil {
		err = h.store.Close()
	}
	return errors.Join(err, os.RemoveAll(h.dir))
}
