package handlers

import (
	"context"
	"net/http"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/auth"
)

const maxAPIKeyName = 255

func toAPIKey(k store.APIKey) api.APIKey {
	return api.APIKey{ID: k.ID, Name: k.Name, Prefix: auth.APIKeyPrefix, LastFour: k.LastFour,
		ExpiresAt: timePtr(k.ExpiresAt), CreatedAt: rfc3339(k.CreatedAt)}
}

// CreateAPIKey answers POST /v1/auth/api-keys: a personal API key of the
// caller in its organization, shown once in the answer; only its SHA-256
// is stored.
func (h *Handlers) CreateAPIKey(w http.ResponseWriter, r *http.Request) error {
	var in api.APIKeyCreate
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.Name == nil {
		return problem.BadRequest(problem.TypeInvalidRequest, "name is required")
	}
	name, err := trimmedText("name", *in.Name, maxAPIKeyName, true)
	if err != nil {
		return err
	}
	if in.ExpiresAt != nil && !in.ExpiresAt.After(h.now()) {
		return problem.BadRequest(problem.TypeInvalidRequest, "expires_at must be in the future")
	}
	key, hash, err := auth.NewOpaque(auth.APIKeyPrefix)
	if err != nil {
		return err
	}
	p := principal(r)
	id := newID()
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("api_key/" + id)
	if err := h.sealAPIKey(r, id, hash, in.ExpiresAt, false); err != nil {
		return err
	}
	k, err := h.Accounts.CreateAPIKey(r.Context(), store.APIKey{OrgID: p.OrgID, ID: id, UserID: p.ID, Name: name, Hash: hash,
		LastFour: auth.LastFour(key), ExpiresAt: in.ExpiresAt}, entry.Prepare(http.StatusCreated))
	if err != nil {
		return err
	}
	info := toAPIKey(k)
	return writeJSON(w, http.StatusCreated, api.APIKeyCreated{ID: info.ID, Name: info.Name, Key: key, Prefix: info.Prefix,
		LastFour: info.LastFour, ExpiresAt: info.ExpiresAt, CreatedAt: info.CreatedAt})
}

// ListAPIKeys answers GET /v1/auth/api-keys: the caller's keys in its
// organization, expired ones included, by prefix and last four characters.
func (h *Handlers) ListAPIKeys(w http.ResponseWriter, r *http.Request) error {
	p := principal(r)
	return listByID(w, r, "api_keys", func(ctx context.Context, after string, limit int) ([]store.APIKey, error) {
		return h.Accounts.ListAPIKeys(ctx, p.OrgID, p.ID, after, limit)
	}, toAPIKey, func(k store.APIKey) string { return k.ID })
}

// DeleteAPIKey answers DELETE /v1/auth/api-keys/{key_id}: the key stops
// working at once on this replica and, through the database's
// notification, on every other one.
func (h *Handlers) DeleteAPIKey(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "key_id", "API key")
	if err != nil {
		return err
	}
	p := principal(r)
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("api_key/" + id)
	if err := h.sealAPIKey(r, id, nil, nil, true); err != nil {
		return err
	}
	err = h.Accounts.DeleteAPIKey(r.Context(), p.OrgID, p.ID, id, entry.Prepare(http.StatusNoContent))
	if err != nil {
		return err
	}
	h.forgetAPIKeys(id)
	w.WriteHeader(http.StatusNoContent)
	return nil
}
