package handlers

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"time"

	"github.com/google/uuid"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/policy"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/auth"
)

// SharePassphraseHeader carries a share's passphrase. The query string is
// never read for it (URLs end up in logs and browser history).
const SharePassphraseHeader = "X-Share-Passphrase"

// errShareRefused is the one answer to a wrong or missing passphrase and to
// an address outside the allowlist, so that neither is told apart.
var errShareRefused = problem.New(http.StatusForbidden, problem.TypeForbidden,
	"the share cannot be opened with this passphrase from this address")

func shareGone(detail string) error { return problem.New(http.StatusGone, problem.TypeGone, detail) }

// OpenShare answers GET /v1/share/{id}, a public route. In order: the
// client address's failure budget (429 share_throttled), the share (404
// when unknown), its recipient (a creator, user or agent share opens only
// with the addressed principal's bearer token, and answers 404 to anyone
// else so that its existence does not leak), its state and expiry (410), the
// passphrase and allowlist (403; a share with a passphrase counts every
// attempt per share and per address and answers 429 share_throttled past
// the limits), then one access taken atomically, then the version the share
// was created from, decrypted by the enclave with the authority of the
// share's creator (a short-lived token minted for the creator;
// docs/threat-model.md "Shares"), the opener's address standing as the
// client address.
func (h *Handlers) OpenShare(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	entry := auditlog.FromContext(ctx)
	now := h.now()
	addr := shareAddressKey(entry.Event.ClientIP)
	if err := h.shareAddressBudget(ctx, w, addr, now); err != nil {
		return err
	}
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		return h.shareMiss(ctx, w, addr, now)
	}
	entry.SetResource("share/" + id.String())
	sh, err := h.Shares.GetShare(ctx, id.String())
	if errors.Is(err, store.ErrNotFound) {
		return h.shareMiss(ctx, w, addr, now)
	}
	if err != nil {
		return err
	}
	opener, addressed, err := h.shareOpener(r, sh)
	if err != nil {
		return err
	}
	if !addressed {
		return h.shareMiss(ctx, w, addr, now)
	}
	if opener.ID != "" {
		entry.SetOrg(sh.OrgID, opener.Type, opener.ID)
	} else {
		entry.SetOrg(sh.OrgID, "anonymous", "")
	}
	switch {
	case sh.Status == store.ShareRevoked:
		return shareGone("the share was revoked")
	case sh.Status == store.ShareDeclined:
		return shareGone("the share was declined")
	case !now.Before(sh.ExpiresAt):
		return shareGone("the share expired")
	case sh.Remaining <= 0:
		return shareGone("the share's access count is exhausted")
	}
	if err := h.checkShareAttempt(ctx, w, sh, addr, r.Header.Get(SharePassphraseHeader), entry.Event.ClientIP, now); err != nil {
		return err
	}
	creator, err := h.shareCreator(r, sh, now)
	if err != nil {
		return err
	}
	access, err := h.accessOf(ctx, creator, entry.Event.ClientIP, sh.VaultID)
	if err != nil {
		return err
	}
	if !access.allows(sh.Path, policy.PermissionRead) {
		return shareGone("the share's creator may no longer read the secret")
	}
	if err := h.loadPolicySet(ctx, access, sh.VaultID); err != nil {
		return err
	}
	left, err := h.Shares.ConsumeShare(ctx, sh.ID)
	if errors.Is(err, store.ErrShareUnavailable) {
		return shareGone("the share's access count is exhausted")
	}
	if err != nil {
		return err
	}
	// The version the share was made from, never a newer one: rotating a
	// leaked credential does not hand the new value to live links.
	sec, sealed, err := h.Shares.SharedSecret(ctx, sh.OrgID, sh.SecretID, sh.SecretVersion)
	if errors.Is(err, store.ErrNotFound) {
		return shareGone("the shared secret version no longer exists")
	}
	if err != nil {
		return err
	}
	if sec.VaultID != sh.VaultID || sec.Path != sh.Path {
		return shareGone("the shared secret no longer exists")
	}
	if sec.ExpiresAt != nil && !now.Before(*sec.ExpiresAt) {
		return shareGone("the shared secret expired")
	}
	// The enclave opens with the creator's authority and never sees the
	// opener: an intents agent addressed by a share of a key is refused
	// here (docs/threat-model.md "Private keys and the intents API").
	if intentsKeyBlocked(opener, sec.Type) {
		return problem.PrivateKeyBlocked()
	}
	var notBefore time.Time
	if creator.Agent != nil {
		notBefore = creator.Agent.NotBefore
	}
	minted, err := h.Minter.Share(ctx, creator.Type, creator.ID, sh.OrgID, sh.ID, notBefore)
	if errors.Is(err, auth.ErrInvalidToken) || errors.Is(err, auth.ErrNoRecord) {
		return shareGone("the share's creator no longer has access")
	}
	if err != nil {
		return err
	}
	tok := minted.Token
	plain, err := h.openSecret(ctx, enclaveCaller{Token: tok, ClientIP: entry.Event.ClientIP}, access, sec, sealed)
	if err != nil {
		return err
	}
	v, enc := encodeSecretValue(plain, false)
	return writeJSON(w, http.StatusOK, api.ShareOpened{ShareID: sh.ID, SecretID: sh.SecretID, Path: sh.Path,
		Type: sec.Type, Version: sec.Version, Value: v, Encoding: enc, Remaining: left, ExpiresAt: rfc3339(sh.ExpiresAt)})
}

// checkShareCredentials checks the passphrase (always derived when the share
// has one, so timing does not tell which check failed) and the allowlist.
func checkShareCredentials(ctx context.Context, sh store.Share, passphrase, clientIP string) error {
	ok := true
	if sh.PassphraseHash != nil {
		err := verifySharePassphrase(ctx, *sh.PassphraseHash, passphrase)
		if errors.Is(err, errSharePoolBusy) {
			return err
		}
		ok = err == nil
	}
	if len(sh.IPAllowlist) > 0 {
		ip, err := netip.ParseAddr(clientIP)
		in := false
		for _, c := range sh.IPAllowlist {
			if pfx, perr := netip.ParsePrefix(c); err == nil && perr == nil && pfx.Contains(ip.Unmap()) {
				in = true
			}
		}
		ok = ok && in
	}
	if !ok {
		return errShareRefused
	}
	return nil
}
