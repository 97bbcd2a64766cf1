package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/policy"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/auth"
)

// Secret limits (documented in api/openapi.yaml).
const (
	MaxValueBytes     = 512 << 10
	maxMetadataKeys   = 64
	maxMetadataKey    = 128
	maxMetadataValue  = 1024
	maxPrefixBytes    = MaxPathBytes
	secretPathParam   = "path"
	secretVaultParam  = "vault_id"
	secretResourceFmt = "vault/%s/secret/%s"
)

// SecretTypes are the accepted values of a secret's `type`.
var SecretTypes = map[string]bool{
	"api_key": true, "password": true, "private_key": true, "ssh_key": true, "payment_card": true,
	"gift_card": true, "certificate": true, "token": true, "generic": true,
}

type secretWrite struct {
	Type      *string           `json:"type"`
	Value     *string           `json:"value"`
	Metadata  map[string]string `json:"metadata"`
	ExpiresAt *time.Time        `json:"expires_at"`
}

func (in *secretWrite) validate(now time.Time) error {
	switch {
	case in.Type == nil || in.Value == nil:
		return problem.BadRequest(problem.TypeInvalidRequest, "type and value are required")
	case !SecretTypes[*in.Type]:
		return problem.BadRequest(problem.TypeInvalidRequest,
			"type must be one of api_key, password, private_key, ssh_key, payment_card, gift_card, certificate, token, generic")
	case len(*in.Value) > MaxValueBytes:
		return problem.BadRequest(problem.TypeInvalidRequest, "value must be at most 524288 bytes")
	case len(in.Metadata) > maxMetadataKeys:
		return problem.BadRequest(problem.TypeInvalidRequest, "metadata may hold at most 64 keys")
	case in.ExpiresAt != nil && !in.ExpiresAt.After(now):
		return problem.BadRequest(problem.TypeInvalidRequest, "expires_at must be in the future")
	}
	for k, v := range in.Metadata {
		if k == "" || len(k) > maxMetadataKey || len(v) > maxMetadataValue || !utf8.ValidString(k) {
			return problem.BadRequest(problem.TypeInvalidRequest,
				"metadata keys must be 1 to 128 bytes and values at most 1024 bytes")
		}
	}
	return nil
}

type secretResponse struct {
	ID        string          `json:"id"`
	VaultID   string          `json:"vault_id"`
	Path      string          `json:"path"`
	Type      string          `json:"type"`
	Value     *string         `json:"value,omitempty"`
	Metadata  json.RawMessage `json:"metadata"`
	Version   uint32          `json:"version"`
	ExpiresAt *string         `json:"expires_at"`
	CreatedAt string          `json:"created_at"`
	UpdatedAt string          `json:"updated_at"`
}

func toSecret(s store.Secret) secretResponse {
	return secretResponse{ID: s.ID, VaultID: s.VaultID, Path: s.Path, Type: s.Type, Metadata: s.Metadata,
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
	var in secretWrite
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if err := in.validate(time.Now()); err != nil {
		return err
	}
	meta, err := json.Marshal(in.Metadata)
	if err != nil {
		return err
	}
	if in.Metadata == nil {
		meta = []byte("{}")
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
	value := []byte(*in.Value)
	sec, created, err := h.Vaults.PutSecret(r.Context(),
		store.Secret{OrgID: p.OrgID, VaultID: vaultID, Path: path, Type: *in.Type, Metadata: meta, ExpiresAt: in.ExpiresAt},
		func(ctx context.Context, version uint32) (store.Sealed, error) {
			resp, err := h.Enclave.Seal(ctx, wire.SealRequest{OrgID: p.OrgID, VaultID: vaultID, Path: path,
				SecretVersion: version, Plaintext: value, Token: c.Token, ClientIP: c.ClientIP,
				PolicySet: access.set, PolicyMAC: access.mac})
			if err != nil {
				return store.Sealed{}, err
			}
			return store.Sealed{KEKVersion: resp.KEKVersion, WrappedDEK: resp.WrappedDEK, Ciphertext: resp.Ciphertext}, nil
		},
		func(created bool) *auditchain.Event {
			if created {
				return entry.Prepare(http.StatusCreated)
			}
			return entry.Prepare(http.StatusOK)
		})
	if errors.Is(err, store.ErrNotFound) {
		return problem.NotFound("vault")
	}
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return writeJSON(w, status, toSecret(sec))
}

// GetSecret answers GET /v1/vaults/{vault_id}/secrets/{path} with the
// decrypted value. A secret past its expiry answers 410 and is not opened.
func (h *Handlers) GetSecret(w http.ResponseWriter, r *http.Request) error {
	vaultID, path, err := secretTarget(r)
	if err != nil {
		return err
	}
	access, err := h.authorize(r, vaultID, path, policy.PermissionRead)
	if err != nil {
		return err
	}
	p := principal(r)
	sec, sealed, err := h.Vaults.GetSecret(r.Context(), p.OrgID, vaultID, path)
	if errors.Is(err, store.ErrNotFound) {
		return problem.NotFound("secret")
	}
	if err != nil {
		return err
	}
	if sec.ExpiresAt != nil && !time.Now().Before(*sec.ExpiresAt) {
		return problem.New(http.StatusGone, problem.TypeGone, "the secret expired at "+sec.ExpiresAt.UTC().Format(time.RFC3339))
	}
	if intentsKeyBlocked(p, sec.Type) {
		return problem.New(http.StatusForbidden, problem.TypeForbidden,
			"an agent with the intents API enabled signs through it and cannot read private_key or ssh_key secrets")
	}
	c, err := h.caller(r.Context())
	if err != nil {
		return err
	}
	plain, err := h.Enclave.Open(r.Context(), wire.OpenRequest{OrgID: p.OrgID, VaultID: vaultID, Path: path,
		SecretVersion: sec.Version, WrappedDEK: sealed.WrappedDEK, Ciphertext: sealed.Ciphertext,
		Token: c.Token, ClientIP: c.ClientIP, PolicySet: access.set, PolicyMAC: access.mac})
	if err != nil {
		return err
	}
	out := toSecret(sec)
	v := string(plain)
	out.Value = &v
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
	if len(prefix) > maxPrefixBytes || !utf8.ValidString(prefix) || strings.ContainsRune(prefix, 0) {
		return problem.BadRequest(problem.TypeInvalidRequest, "prefix must be valid UTF-8 of at most 1024 bytes")
	}
	p := principal(r)
	auditlog.FromContext(r.Context()).SetResource("vault/" + vaultID + "/secrets")
	if _, err := h.Vaults.GetVault(r.Context(), p.OrgID, vaultID); errors.Is(err, store.ErrNotFound) {
		return problem.NotFound("vault")
	} else if err != nil {
		return err
	}
	// Members and agents see only the paths they may read, and no vault
	// where they hold no allow policy.
	access, err := h.access(r, vaultID)
	if err != nil {
		return err
	}
	if !access.holdsAllow() {
		return problem.NotFound("vault")
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
	if errors.Is(err, store.ErrNotFound) {
		return problem.NotFound("secret")
	}
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// intentsKeyBlocked reports whether p may not read a secret of type typ:
// an agent with the intents API enabled signs through the enclave and
// never reads raw keys.
func intentsKeyBlocked(p auth.Principal, typ string) bool {
	return p.Type == auth.PrincipalAgent && p.Agent != nil && p.Agent.IntentsAPIEnabled &&
		(typ == "private_key" || typ == "ssh_key")
}
