package handlers

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"

	"github.com/btcsuite/btcd/btcutil"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auth"
	"github.com/opencustody/ocv/proxy/intents"
	"github.com/opencustody/ocv/proxy/metering"
)

// AuthConfirmHeader carries the re-authentication of a sensitive human
// operation: the user's current password.
const AuthConfirmHeader = "X-Auth-Confirm"

// maxImportKeyLen bounds an imported key's text form.
const maxImportKeyLen = 256

// ImportSigningKey answers POST /v1/agents/{id}/signing-keys/{chain}/import
// (humans, X-Auth-Confirm): an existing private key in hex, base64 or WIF
// goes into the HSM and becomes the agent's active key for the chain (an
// active key is rotated out). The key is never stored anywhere else.
func (h *Handlers) ImportSigningKey(w http.ResponseWriter, r *http.Request) error {
	a, err := h.agentOf(r)
	if err != nil {
		return err
	}
	chain, err := h.Intents.KeyChain(r.Context(), r.PathValue("chain"))
	if err != nil {
		return err
	}
	if err := h.confirmReauth(w, r); err != nil {
		return err
	}
	var in api.SigningKeyImport
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.PrivateKey == nil || len(*in.PrivateKey) > maxImportKeyLen {
		return problem.BadRequest(problem.TypeInvalidRequest, "private_key is required (hex, base64 or WIF)")
	}
	priv, err := decodePrivateKey(chain, strings.TrimSpace(*in.PrivateKey))
	if err != nil {
		return err
	}
	_, err = h.Keys.ActiveSigningKey(r.Context(), a.OrgID, a.ID, chain)
	rotate := err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if !rotate {
		if err := h.checkResource(r, metering.ResourceWallets, h.Keys.CountSigningKeys); err != nil {
			return err
		}
	}
	k, err := h.makeSigningKey(r, a, chain, priv, rotate)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, intents.SigningKeyOf(k))
}

var errBadImportKey = problem.BadRequest(problem.TypeInvalidRequest,
	"private_key must be a 32-byte key in hex or base64, a WIF (secp256k1 chains), or a 64-byte Ed25519 secret key")

// decodePrivateKey reads a private key in hex (optional 0x), WIF (secp256k1
// chains) or base64 and returns the 32-byte scalar or Ed25519 seed. A
// 64-byte Ed25519 secret key (seed ‖ public key, as Solana tools write it)
// is accepted when its halves agree.
func decodePrivateKey(chain, s string) ([]byte, error) {
	edwards := curveOfChain(chain) == "ed25519"
	var raw []byte
	if b, err := hex.DecodeString(strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")); err == nil {
		raw = b
	} else if w, err := btcutil.DecodeWIF(s); err == nil && !edwards {
		raw = w.PrivKey.Serialize()
	} else if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		raw = b
	} else if b, err := base64.RawURLEncoding.DecodeString(s); err == nil {
		raw = b
	} else {
		return nil, errBadImportKey
	}
	switch {
	case len(raw) == 32:
		return raw, nil
	case len(raw) == 64 && edwards:
		seed := raw[:32]
		if !bytes.Equal(ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey), raw[32:]) {
			return nil, errBadImportKey
		}
		return bytes.Clone(seed), nil
	}
	return nil, errBadImportKey
}

// curveOfChain is the curve of a chain family's keys.
func curveOfChain(chain string) string {
	switch chain {
	case "solana", "xrp", "cardano":
		return "ed25519"
	}
	return "secp256k1"
}

var errReauthRequired = problem.New(http.StatusForbidden, "reauth_required",
	"this operation needs the header X-Auth-Confirm with your current password")

// confirmReauth checks X-Auth-Confirm against the calling user's password.
// A wrong password counts toward the account lockout like a failed login.
func (h *Handlers) confirmReauth(w http.ResponseWriter, r *http.Request) error {
	pw := r.Header.Get(AuthConfirmHeader)
	if pw == "" {
		return errReauthRequired
	}
	u, err := h.currentUser(r)
	if err != nil {
		return err
	}
	if u.PasswordHash == "" {
		return errReauthRequired
	}
	if h.now().Before(u.LockedUntil) {
		return h.accountLocked(w, u.LockedUntil)
	}
	err = auth.ErrPasswordMismatch
	if len(pw) <= maxPasswordBytes {
		err = auth.VerifyPassword(r.Context(), u.PasswordHash, pw)
	}
	if errors.Is(err, auth.ErrPasswordMismatch) {
		return h.passwordFailed(w, r, u.ID, errWrongPassword)
	}
	return err
}
