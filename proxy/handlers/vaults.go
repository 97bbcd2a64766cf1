package handlers

import (
	"context"
	"errors"
	"net/http"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/auth"
	"github.com/opencustody/ocv/proxy/metering"
)

const (
	maxVaultName        = 255
	maxDescriptionChars = 1024
)

func toVault(v store.Vault) api.Vault {
	return api.Vault{ID: v.ID, Name: v.Name, Description: v.Description, KEKVersion: v.KEKVersion,
		CreatedAt: rfc3339(v.CreatedAt), UpdatedAt: rfc3339(v.UpdatedAt)}
}

func principal(r *http.Request) auth.Principal {
	p, _ := auth.FromContext(r.Context())
	return p
}

// vaultName validates a new vault's fields and returns its name, trimmed
// and in NFC, with its look-alike key (normalizeVaultName).
func vaultName(in api.VaultCreate) (name, key string, err error) {
	if in.Name == nil {
		return "", "", problem.BadRequest(problem.TypeInvalidRequest, "name is required")
	}
	if !utf8.ValidString(*in.Name) {
		return "", "", problem.BadRequest(problem.TypeInvalidRequest, "name must be valid UTF-8")
	}
	name, key, err = normalizeVaultName(*in.Name)
	if err != nil {
		return "", "", err
	}
	if n := utf8.RuneCountInString(name); n < 1 || n > maxVaultName {
		return "", "", problem.BadRequest(problem.TypeInvalidRequest, "name must be 1 to 255 characters after trimming")
	}
	if utf8.RuneCountInString(in.Description) > maxDescriptionChars {
		return "", "", problem.BadRequest(problem.TypeInvalidRequest, "description must be at most 1024 characters")
	}
	return name, key, nil
}

// CreateVault answers POST /v1/vaults (owners and admins). The name is
// trimmed, 1 to 255 characters and unique per organization (409); the
// vault's KEK is made in the HSM, with the caller's token for the enclave
// to check, before the vault row commits.
func (h *Handlers) CreateVault(w http.ResponseWriter, r *http.Request) error {
	p := principal(r)
	if !bypasses(p) {
		return problem.New(http.StatusForbidden, problem.TypeForbidden, "only owners and admins may create vaults")
	}
	token, err := h.callerToken(r.Context())
	if err != nil {
		return err
	}
	var in api.VaultCreate
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	name, key, err := vaultName(in)
	if err != nil {
		return err
	}
	if err := h.checkResource(r, metering.ResourceVaults, h.countVaults); err != nil {
		return err
	}
	id := uuid.Must(uuid.NewV7()).String()
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("vault/" + id)
	v, err := h.Vaults.CreateVault(r.Context(), store.Vault{OrgID: p.OrgID, ID: id, Name: name, NameKey: key, Description: in.Description, CreatedBy: p.ID},
		func(ctx context.Context) (uint32, error) { return h.Enclave.CreateKEK(ctx, token, p.OrgID, id) },
		entry.Prepare(http.StatusCreated))
	if errors.Is(err, store.ErrConflict) {
		return problem.New(http.StatusConflict, problem.TypeConflict, "a vault with this name (or one that looks the same) already exists")
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, toVault(v))
}

// ListVaults answers GET /v1/vaults.
func (h *Handlers) ListVaults(w http.ResponseWriter, r *http.Request) error {
	limit, cursor, err := pageParams(r)
	if err != nil {
		return err
	}
	if cursor != "" {
		if _, err := uuid.Parse(cursor); err != nil {
			return problem.BadRequest(problem.TypeInvalidRequest, "cursor is not valid")
		}
	}
	p := principal(r)
	auditlog.FromContext(r.Context()).SetResource("vaults")
	var vs []store.Vault
	if bypasses(p) {
		vs, err = h.Vaults.ListVaults(r.Context(), p.OrgID, cursor, limit+1)
	} else {
		// Members and agents see the vaults where they hold an allow policy.
		vs, err = h.Policies.ListVaultsFor(r.Context(), p.OrgID, p.Type, p.ID, cursor, limit+1)
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, listPage(vs, limit, toVault, func(v store.Vault) string { return v.ID }))
}

// GetVault answers GET /v1/vaults/{id}.
func (h *Handlers) GetVault(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id", "vault")
	if err != nil {
		return err
	}
	auditlog.FromContext(r.Context()).SetResource("vault/" + id)
	v, _, err := h.visibleVault(r, id)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toVault(v))
}

// visibleVault returns the vault and the caller's access to it. Members and
// agents see only vaults where they hold an allow policy: any other vault
// answers 404 like a missing one.
func (h *Handlers) visibleVault(r *http.Request, id string) (store.Vault, *accessCheck, error) {
	v, err := h.Vaults.GetVault(r.Context(), principal(r).OrgID, id)
	if err != nil {
		return store.Vault{}, nil, err
	}
	access, err := h.access(r, id)
	if err != nil {
		return store.Vault{}, nil, err
	}
	if !access.holdsAllow() {
		return store.Vault{}, nil, problem.NotFound("vault")
	}
	return v, access, nil
}

// DeleteVault answers DELETE /v1/vaults/{id}: the vault and its secrets.
func (h *Handlers) DeleteVault(w http.ResponseWriter, r *http.Request) error {
	id, entry, err := auditedID(r, "id", "vault", "vault/")
	if err != nil {
		return err
	}
	err = h.Vaults.DeleteVault(r.Context(), principal(r).OrgID, id, entry.Prepare(http.StatusNoContent))
	return noContent(w, err)
}

// noContent answers 204 unless err.
func noContent(w http.ResponseWriter, err error) error {
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
