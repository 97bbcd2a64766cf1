package handlers

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auth"
)

// refreshRecord is the identity record of a refresh token row: the
// enclave seals it with the token it mints, and checks the next refresh
// against it.
func refreshRecord(row store.RefreshToken) *wire.IdentityRecord {
	var v [32]byte
	copy(v[:], row.Hash)
	return &wire.IdentityRecord{Kind: wire.IdentityRefresh, OrgID: row.OrgID, UserID: row.UserID, ID: row.FamilyID,
		Verifiers: [][32]byte{v}, ExpiresMs: row.ExpiresAt.UnixMilli()}
}

// errIdentityRefused answers a change the enclave refused to seal.
var errIdentityRefused = problem.New(http.StatusForbidden, problem.TypeForbidden,
	"the change is not authorised")

// sealError maps the enclave's refusal to seal to 403.
func sealError(err error) error {
	if err == auth.ErrSealRefused {
		return errIdentityRefused
	}
	return err
}

// sealAgentRecord has the enclave seal the agent's record as it is now
// (status, environment, flags, scopes, key), with the changer's token; a
// failure leaves the previous record, or none (fail closed: the agent's
// key then mints nothing newer).
func (h *Handlers) sealAgentRecord(r *http.Request, orgID, agentID, token string) {
	ctx := context.WithoutCancel(r.Context())
	a, err := h.Agents.GetAgent(ctx, orgID, agentID)
	if err != nil {
		return
	}
	c, err := h.agentClaims(r, a, h.now())
	if err != nil {
		return
	}
	status := wire.StatusActive
	if a.Status != store.AgentActive {
		status = wire.StatusDisabled
	}
	flags := wire.FlagHasScopes
	for _, f := range []struct {
		on   bool
		flag uint8
	}{{c.IntentsAPIEnabled, wire.FlagIntentsAPI}, {c.ExecutionIntentsEnabled, wire.FlagExecutionIntents},
		{c.IntentsRequireTEE, wire.FlagIntentsRequireTEE}, {c.ExecutionRequireTEE, wire.FlagExecutionRequireTEE}} {
		if f.on {
			flags |= f.flag
		}
	}
	rec := &wire.IdentityRecord{Kind: wire.IdentityAgent, OrgID: orgID, ID: agentID,
		Status: status, Environment: c.Environment, Flags: flags, Scopes: c.Scopes}
	if a.APIKeyExpiresAt != nil {
		rec.ExpiresMs = max(a.APIKeyExpiresAt.UnixMilli(), 1)
	}
	_ = h.Minter.SealAgent(ctx, token, rec)
}

// sealAPIKey has the enclave seal a new personal API key with the caller's
// authority; retire (expires zero) seals an existing one as expired now.
func (h *Handlers) sealAPIKey(r *http.Request, keyID string, hash []byte, expires *time.Time, retire bool) error {
	c, err := h.caller(r.Context())
	if err != nil {
		return err
	}
	p := principal(r)
	if retire {
		return sealError(h.Minter.RetireAPIKey(r.Context(), c.Token, p.OrgID, keyID))
	}
	var exp time.Time
	if expires != nil {
		exp = *expires
	}
	return sealError(h.Minter.SealAPIKey(r.Context(), c.Token, p.OrgID, p.ID, keyID, hash, exp))
}

// sealMember has the enclave seal a membership change with the caller's
// token (an owner's or admin's of the organization); removed: status
// deleted.
func (h *Handlers) sealMember(r *http.Request, userID, role string, removed bool) error {
	p := principal(r)
	status := wire.StatusActive
	if removed {
		status = wire.StatusDeleted
	}
	c, err := h.caller(r.Context())
	if err != nil {
		return err
	}
	return sealError(h.Minter.SetMember(r.Context(), c.Token, p.OrgID, userID, role, status))
}

// restoreOwner seals userID's owner membership again when the store
// refused to take the organization's last owner away after the change was
// sealed (the caller is an owner: only owners change an owner).
func (h *Handlers) restoreOwner(r *http.Request, userID string, err error) {
	if errors.Is(err, store.ErrLastOwner) {
		_ = h.sealMember(r, userID, "owner", false)
	}
}
