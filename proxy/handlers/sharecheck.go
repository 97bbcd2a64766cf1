package handlers

import (
	"errors"
	"net/http"
	"net/mail"
	"net/netip"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auth"
)

// Share limits (documented in api/openapi.yaml).
const (
	MaxShareLifetime    = 30 * 24 * time.Hour
	MaxShareAccessCount = 1000
	minSharePassphrase  = 8
	maxSharePassphrase  = 1024
	maxShareAllowlist   = 64
)

// ShareRecipientTypes are the accepted values of a share's recipient_type.
var ShareRecipientTypes = map[string]bool{
	"creator": true, "external_email": true, "user": true, "agent": true, "anyone_with_link": true,
}

func badShare(detail string) error { return problem.BadRequest(problem.TypeInvalidRequest, detail) }

// validateShareCreate checks the fields that need no lookup and fills the
// defaults.
func validateShareCreate(in *api.ShareCreate, now time.Time) error {
	switch {
	case in.RecipientType == nil || !ShareRecipientTypes[*in.RecipientType]:
		return badShare("recipient_type must be one of creator, external_email, user, agent, anyone_with_link")
	case in.ExpiresAt == nil:
		return badShare("expires_at is required")
	case !in.ExpiresAt.After(now):
		return badShare("expires_at must be in the future")
	case in.ExpiresAt.Sub(now) > MaxShareLifetime:
		return badShare("expires_at must be at most 30 days ahead")
	case in.MaxAccessCount != nil && (*in.MaxAccessCount < 1 || *in.MaxAccessCount > MaxShareAccessCount):
		return badShare("max_access_count must be from 1 to 1000")
	case in.Passphrase != nil && (len(*in.Passphrase) < minSharePassphrase || len(*in.Passphrase) > maxSharePassphrase):
		return badShare("passphrase must be 8 to 1024 bytes")
	case len(in.IPAllowlist) > maxShareAllowlist:
		return badShare("ip_allowlist may hold at most 64 CIDR blocks")
	}
	for i, c := range in.IPAllowlist {
		pfx, err := netip.ParsePrefix(strings.TrimSpace(c))
		if err != nil {
			return badShare("ip_allowlist entries must be CIDR blocks such as 203.0.113.0/24")
		}
		in.IPAllowlist[i] = pfx.Masked().String()
	}
	if in.IPAllowlist == nil {
		in.IPAllowlist = []string{}
	}
	if in.MaxAccessCount == nil {
		one := 1
		in.MaxAccessCount = &one
	}
	t := *in.RecipientType
	if in.Email != nil && t != "external_email" {
		return badShare("email is only for recipient_type external_email")
	}
	if in.RecipientID != nil && t != "user" && t != "agent" {
		return badShare("recipient_id is only for recipient_type user or agent")
	}
	return nil
}

// shareRecipient resolves and checks the recipient of a share the caller p
// makes.
func (h *Handlers) shareRecipient(r *http.Request, p auth.Principal, in *api.ShareCreate, sh *store.Share) error {
	switch *in.RecipientType {
	case "creator":
		// An agent shares back to the human who created it; a user to itself.
		id := p.ID
		if p.Type == auth.PrincipalAgent {
			a, err := h.Agents.GetAgent(r.Context(), p.OrgID, p.ID)
			if err != nil {
				return err
			}
			id = a.CreatedBy
		}
		sh.RecipientID = &id
	case "external_email":
		if in.Email == nil {
			return badShare("email is required for recipient_type external_email")
		}
		e := strings.TrimSpace(*in.Email)
		if a, err := mail.ParseAddress(e); err != nil || a.Address != e || len(e) > maxEmailBytes {
			return badShare("email is not a valid address")
		}
		sh.RecipientEmail = &e
	case "user", "agent":
		if in.RecipientID == nil {
			return badShare("recipient_id is required for recipient_type user or agent")
		}
		id, err := uuid.Parse(*in.RecipientID)
		if err != nil {
			return badShare("recipient_id must be a UUID")
		}
		rid := id.String()
		if *in.RecipientType == "user" {
			_, _, err = h.Shares.MemberRole(r.Context(), p.OrgID, rid)
		} else {
			var a store.Agent
			if a, err = h.Agents.GetAgent(r.Context(), p.OrgID, rid); err == nil && a.Status != store.AgentActive {
				err = store.ErrNotFound
			}
		}
		if errors.Is(err, store.ErrNotFound) {
			return badShare("recipient_id names no member or active agent of your organization")
		}
		if err != nil {
			return err
		}
		sh.RecipientID = &rid
	}
	return nil
}
