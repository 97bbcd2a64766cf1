package handlers

import (
	"net/http"

	"github.com/google/uuid"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/policy"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/auth"
)

func toShare(s store.Share) api.Share {
	return api.Share{ID: s.ID, SecretID: s.SecretID, VaultID: s.VaultID, Path: s.Path, CreatorType: s.CreatorType,
		CreatorID: s.CreatorID, RecipientType: s.RecipientType, RecipientID: s.RecipientID, Email: s.RecipientEmail,
		ExpiresAt: rfc3339(s.ExpiresAt), MaxAccessCount: s.MaxAccessCount, Remaining: s.Remaining,
		HasPassphrase: s.PassphraseHash != nil, IPAllowlist: append([]string{}, s.IPAllowlist...), Status: s.Status,
		URL: "/v1/share/" + s.ID, CreatedAt: rfc3339(s.CreatedAt)}
}

// CreateShare answers POST /v1/secrets/{secret_id}/share. The secret must be
// in the caller's organization (404 otherwise) and readable by the caller
// through the same enforcement as a secret read. Agents may share only back
// to their creator.
func (h *Handlers) CreateShare(w http.ResponseWriter, r *http.Request) error {
	secretID, err := pathID(r, "secret_id", "secret")
	if err != nil {
		return err
	}
	p := principal(r)
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("secret/" + secretID)
	var in api.ShareCreate
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	now := h.now()
	if err := validateShareCreate(&in, now); err != nil {
		return err
	}
	if p.Type == auth.PrincipalAgent && *in.RecipientType != "creator" {
		return problem.New(http.StatusForbidden, problem.TypeForbidden, "agents may share only with recipient_type creator")
	}
	sec, err := h.Shares.SecretByID(r.Context(), p.OrgID, secretID)
	if err != nil {
		return err
	}
	if _, err := h.authorize(r, sec.VaultID, sec.Path, policy.PermissionRead); err != nil {
		return err
	}
	if intentsKeyBlocked(p, sec.Type) { // the enclave refuses to open it anyway
		return problem.PrivateKeyBlocked()
	}
	sh := store.Share{OrgID: p.OrgID, ID: uuid.New().String(), SecretID: sec.ID, VaultID: sec.VaultID,
		Path: sec.Path, CreatorType: p.Type, CreatorID: p.ID, RecipientType: *in.RecipientType, ExpiresAt: *in.ExpiresAt,
		MaxAccessCount: *in.MaxAccessCount, IPAllowlist: in.IPAllowlist}
	if err := h.shareRecipient(r, p, &in, &sh); err != nil {
		return err
	}
	if in.Passphrase != nil {
		hash, err := hashSharePassphrase(r.Context(), w, *in.Passphrase)
		if err != nil {
			return err
		}
		sh.PassphraseHash = &hash
	}
	entry.SetResource("share/" + sh.ID)
	// The enclave seals the share with the creator's own authority.
	c, err := h.caller(r.Context())
	if err != nil {
		return err
	}
	if err := h.Minter.SealShare(r.Context(), c.Token, p.ID, p.OrgID, sh.ID, sh.ExpiresAt); err != nil {
		return sealError(err)
	}
	out, err := h.Shares.CreateShare(r.Context(), sh, entry.Prepare(http.StatusCreated))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, toShare(out))
}

func (h *Handlers) listShares(w http.ResponseWriter, r *http.Request, inbound bool) error {
	limit, _, err := pageParams(r)
	if err != nil {
		return err
	}
	p := principal(r)
	var rows []store.Share
	if inbound {
		rows, err = h.Shares.ListInboundShares(r.Context(), p.Type, p.ID, limit)
	} else {
		rows, err = h.Shares.ListOutboundShares(r.Context(), p.OrgID, p.Type, p.ID, limit)
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, listPage(rows, limit, toShare, func(s store.Share) string { return s.ID }))
}

// ListOutboundShares answers GET /v1/shares/outbound: the caller's shares.
func (h *Handlers) ListOutboundShares(w http.ResponseWriter, r *http.Request) error {
	return h.listShares(w, r, false)
}

// ListInboundShares answers GET /v1/shares/inbound: shares sent to the
// caller (as user or agent recipient, or to the user's email address).
func (h *Handlers) ListInboundShares(w http.ResponseWriter, r *http.Request) error {
	return h.listShares(w, r, true)
}
