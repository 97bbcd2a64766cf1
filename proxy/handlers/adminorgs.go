package handlers

import (
	"errors"
	"net/http"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/metering"
)

// tiers returns the configured tier limits, or the defaults.
func (h *Handlers) tiers() metering.Tiers {
	if h.Tiers != nil {
		return h.Tiers
	}
	return metering.DefaultTiers()
}

func (h *Handlers) writeOrgLimits(w http.ResponseWriter, r *http.Request, orgID string) error {
	u, err := h.Admin.OrgUsage(r.Context(), orgID)
	if err != nil {
		return err
	}
	l := h.tiers().For(metering.Tier(u.Tier))
	return writeJSON(w, http.StatusOK, api.OrgLimits{OrgID: orgID, Tier: u.Tier,
		Limits: api.TierLimits{Requests: l.Requests, IntentTransactions: l.IntentTransactions, Wallets: l.Wallets,
			Vaults: l.Vaults, Secrets: l.Secrets, Agents: l.Agents},
		Usage: api.ResourceUsage{Vaults: u.Vaults, Secrets: u.Secrets, Agents: u.Agents}})
}

// AdminOrgLimits answers GET /v1/admin/orgs/{org_id}/limits: the
// organization's tier, that tier's limits (-1: unlimited) and its current
// vault, secret and agent counts.
func (h *Handlers) AdminOrgLimits(w http.ResponseWriter, r *http.Request) error {
	orgID, err := pathID(r, "org_id", "organization")
	if err != nil {
		return err
	}
	auditlog.FromContext(r.Context()).SetResource("org/" + orgID + "/limits")
	return h.writeOrgLimits(w, r, orgID)
}

// AdminSetOrgTier answers PUT /v1/admin/orgs/{org_id}/tier {tier}. Replicas
// see the new tier within metering's cache lifetime (cache_ttl, 30 s by
// default).
func (h *Handlers) AdminSetOrgTier(w http.ResponseWriter, r *http.Request) error {
	orgID, err := pathID(r, "org_id", "organization")
	if err != nil {
		return err
	}
	auditlog.FromContext(r.Context()).SetResource("org/" + orgID + "/tier")
	var in api.OrgTierUpdate
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.Tier == nil || !isTier(*in.Tier) {
		return badField("tier", "is required and must be one of free, pro, team, business, enterprise (exact lowercase)")
	}
	if err := h.Admin.SetOrgTier(r.Context(), orgID, *in.Tier); err != nil {
		return err
	}
	return h.writeOrgLimits(w, r, orgID)
}

// AdminDeleteUser answers DELETE /v1/admin/users/{user_id}: deletes the
// account (store.DeleteUser says what goes with it). Never the caller
// itself (400); another platform administrator only by a super_admin (403);
// not the last owner of an organization that has other members (409). The
// policy sets that moved on are sealed again: in the caller's own
// organization for the caller, elsewhere for a remaining owner or admin of
// that organization (a short-lived token minted for that purpose only).
func (h *Handlers) AdminDeleteUser(w http.ResponseWriter, r *http.Request) error {
	userID, entry, err := auditedID(r, "user_id", "user", "user/")
	if err != nil {
		return err
	}
	p := principal(r)
	if userID == p.ID {
		return problem.BadRequest(problem.TypeInvalidRequest, "you cannot delete your own account")
	}
	out, err := h.Admin.DeleteUser(r.Context(), userID, func(u store.User) error {
		if u.PlatformRole != "" && p.PlatformRole != "super_admin" {
			return problem.New(http.StatusForbidden, problem.TypeForbidden, "only a super_admin may delete a platform administrator")
		}
		return nil
	}, entry.Prepare(http.StatusNoContent))
	var lo *store.LastOwnerError
	switch {
	case errors.As(err, &lo):
		return problem.New(http.StatusConflict, problem.TypeConflict, "the user is the last owner of organization "+lo.OrgID+
			", which has other members; make another member owner first")
	case err != nil:
		return err
	}
	h.forgetAPIKeys(out.APIKeyIDs...)
	for _, oc := range out.Changes {
		h.resealFor(r, oc)
	}
	// An organization deleted with its only member takes its agents: cut
	// every token of it off in the enclave too, for good. A failure fails
	// the request (the deletion is made; the tokens then expire within
	// one lifetime).
	for _, org := range out.DeletedOrgs {
		if err := h.callerCutoff(r, org, wire.OrgCutoffPrincipal, wire.CutoffOrg); err != nil {
			return err
		}
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// resealFor seals the caller's own organization's changed policy sets again
// after a user deletion (other organizations' stay unsealed: fail closed).
func (h *Handlers) resealFor(r *http.Request, oc store.OrgPolicyChanges) {
	p := principal(r)
	if oc.OrgID == p.OrgID && (p.Role == "owner" || p.Role == "admin") {
		for _, ch := range oc.Changes {
			h.sealPolicySet(r, ch)
		}
		return
	}
	// Another organization's sets stay unsealed until one of its owners or
	// admins changes them again (fail closed): the proxy cannot mint a
	// token for that organization's people, only they can.
}
