package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/policy"
	"github.com/opencustody/ocv/proxy/auditlog"
)

func toSecret(s store.Secret) api.Secret {
	return api.Secret{ID: s.ID, VaultID: s.VaultID, Path: s.Path, Type: s.Type, Metadata: s.Metadata,
		Version: s.Version, ExpiresAt: timePtr(s.ExpiresAt), CreatedAt: rfc3339(s.CreatedAt), UpdatedAt: rfc3339(s.UpdatedAt)}
}

// secretTarget reads and validates the vault id and secret path of a request.
func secretTarget(r *http.Request) (vaultID, path string, err error) {
	if vaultID, err = pathID(r, secretVaultParam, "vault"); err != nil {
		return "", "", err
	}
	if path, err = SecretPath(r.PathValue(secretPathParam)); err != nil {
		return "", "", err
	}
	auditlog.FromContext(r.Context()).SetResource("vault/" + vaultID + "/secret/" + path)
	return vaultID, path, nil
}

// PutSecret answers PUT /v1/vaults/{vault_id}/secrets/{path}: every write is
// a new version, sealed in the enclave under a fresh data key.
func (h *Handlers) PutSecret(w http.ResponseWriter, r *http.Request) error {
	vaultID, path, err := secretTarget(r)
	if err != nil {
		return err
	}
	access, err := h.authorize(r, vaultID, path, policy.PermissionWrite)
	if err != nil {
		return err
	}
	var in api.SecretWrite
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if err := validateSecretWrite(in, h.now()); err != nil {
		return err
	}
	value, err := secretValueBytes(*in.Value, in.Encoding)
	if err != nil {
		return err
	}
	if len(value) > MaxValueBytes {
		return problem.BadRequest(problem.TypeInvalidRequest, "value must be at most 524288 bytes")
	}
	meta, err := secretMetadata(in.Metadata)
	if err != nil {
		return err
	}
	if err := h.checkNewSecret(r, vaultID, path); err != nil {
		return err
	}
	p := principal(r)
	c, err := h.caller(r.Context())
	if err != nil {
		return err
	}
	entry := auditlog.FromContext(r.Context())
	sec, created, err := h.Vaults.PutSecret(r.Context(),
		store.Secret{OrgID: p.OrgID, VaultID: vaultID, Path: path, Type: *in.Type, Metadata: meta, ExpiresAt: in.ExpiresAt},
		func(ctx context.Context, version uint32) (store.Sealed, error) {
			resp, err := h.Enclave.Seal(ctx, wire.SealRequest{OrgID: p.OrgID, VaultID: vaultID, Path: path,
				SecretVersion: version, Plaintext: value, Token: c.Token, ClientIP: c.ClientIP,
				PolicySet: access.set, PolicyMAC: access.mac, SecretType: *in.Type})
			if errors.Is(err, wire.ErrNotFound) {
				// No KEK of this organization for this vault id: 404 unless
				// it is the caller's vault whose KEK was destroyed (410).
				return store.Sealed{}, fmt.Errorf("sealing: %w", h.sealRefusedNoKEK(ctx, p.OrgID, vaultID))
			}
			if err != nil {
				return store.Sealed{}, err
			}
			return store.Sealed{KEKVersion: resp.KEKVersion, WrappedDEK: resp.WrappedDEK, Ciphertext: resp.Ciphertext}, nil
		},
		func(created bool) *auditchain.Event { return entry.Prepare(createdOrOK(created)) })
	if err != nil {
		return err
	}
	return writeJSON(w, createdOrOK(created), toSecret(sec))
}

// createdOrOK is the status of a write that created (201) or replaced (200).
func createdOrOK(created bool) int {
	if created {
		return http.StatusCreated
	}
	return http.StatusOK
}

// GetSecret answers GET /v1/vaults/{vault_id}/secrets/{path} with the
// decrypted value. A secret past its expiry answers 410 and is not opened.
func (h *Handlers) GetSecret(w http.ResponseWriter, r *http.Request) error {
	vaultID, path, err := secretTarget(r)
	if err != nil {
		return err
	}
	b64, err := wantBase64(r.URL.Query().Get("encoding"))
	if err != nil {
		return err
	}
	access, err := h.authorize(r, vaultID, path, policy.PermissionRead)
	if err != nil {
		return err
	}
	p := principal(r)
	sec, sealed, err := h.Vaults.GetSecret(r.Context(), p.OrgID, vaultID, path)
	if err != nil {
		return err
	}
	if sec.ExpiresAt != nil && !h.now().Before(*sec.ExpiresAt) {
		return problem.New(http.StatusGone, problem.TypeGone, "the secret expired at "+sec.ExpiresAt.UTC().Format(time.RFC3339))
	}
	if intentsKeyBlocked(p, sec.Type) {
		return problem.PrivateKeyBlocked()
	}
	c, err := h.caller(r.Context())
	if err != nil {
		return err
	}
	plain, err := h.openSecret(r.Context(), c, access, sec, sealed)
	if err != nil {
		return err
	}
	out := toSecret(sec)
	v, enc := encodeSecretValue(plain, b64)
	clear(plain)
	out.Value, out.Encoding = &v, enc
	return writeJSON(w, http.StatusOK, out)
}

// ListSecrets answers GET /v1/vaults/{vault_id}/secrets: metadata only,
// never values, in path order, optionally under `prefix`.
func (h *Handlers) ListSecrets(w http.ResponseWriter, r *http.Request) error {
	vaultID, err := pathID(r, secretVaultParam, "vault")
	if err != nil {
		return err
	}
	limit, cursor, err := pageParams(r)
	if err != nil {
		return err
	}
	prefix := r.URL.Query().Get("prefix")
	if err := checkPrefix(prefix); err != nil {
		return err
	}
	auditlog.FromContext(r.Context()).SetResource("vault/" + vaultID + "/secrets")
	// Members and agents see only the paths they may read, and no vault
	// where they hold no allow policy.
	_, access, err := h.visibleVault(r, vaultID)
	if err != nil {
		return err
	}
	secs, err := h.visibleSecrets(r, access, vaultID, prefix, cursor, limit)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, listPage(secs, limit, toSecret, func(s store.Secret) string { return s.Path }))
}

// DeleteSecret answers DELETE /v1/vaults/{vault_id}/secrets/{path}.
func (h *Handlers) DeleteSecret(w http.ResponseWriter, r *http.Request) error {
	vaultID, path, err := secretTarget(r)
	if err != nil {
		return err
	}
	if _, err := h.authorize(r, vaultID, path, policy.PermissionWrite); err != nil {
		return err
	}
	entry := auditlog.FromContext(r.Context())
	err = h.Vaults.DeleteSecret(r.Context(), principal(r).OrgID, vaultID, path, entry.Prepare(http.StatusNoContent))
	return noContent(w, err)
}
