package handlers

import (
	"errors"
	"net/http"
	"net/mail"
	"net/netip"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/policy"
	"github.com/opencustody/ocv/proxy/auditlog"
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

type shareRequest struct {
	RecipientType  *string    `json:"recipient_type"`
	Email          *string    `json:"email"`
	RecipientID    *string    `json:"recipient_id"`
	ExpiresAt      *time.Time `json:"expires_at"`
	MaxAccessCount *int       `json:"max_access_count"`
	Passphrase     *string    `json:"passphrase"`
	IPAllowlist    []string   `json:"ip_allowlist"`
}

type shareResponse struct {
	ID             string   `json:"id"`
	SecretID       string   `json:"secret_id"`
	VaultID        string   `json:"vault_id"`
	Path           string   `json:"path"`
	CreatorType    string   `json:"creator_type"`
	CreatorID      string   `json:"creator_id"`
	RecipientType  string   `json:"recipient_type"`
	RecipientID    *string  `json:"recipient_id"`
	Email          *string  `json:"email"`
	ExpiresAt      string   `json:"expires_at"`
	MaxAccessCount int      `json:"max_access_count"`
	Remaining      int      `json:"remaining_access_count"`
	HasPassphrase  bool     `json:"has_passphrase"`
	IPAllowlist    []string `json:"ip_allowlist"`
	Status         string   `json:"status"`
	URL            string   `json:"url"`
	CreatedAt      string   `json:"created_at"`
}

func toShare(s store.Share) shareResponse {
	return shareResponse{ID: s.ID, SecretID: s.SecretID, VaultID: s.VaultID, Path: s.Path, CreatorType: s.CreatorType,
		CreatorID: s.CreatorID, RecipientType: s.RecipientType, RecipientID: s.RecipientID, Email: s.RecipientEmail,
		ExpiresAt: rfc3339(s.ExpiresAt), MaxAccessCount: s.MaxAccessCount, Remaining: s.Remaining,
		HasPassphrase: s.PassphraseHash != nil, IPAllowlist: append([]string{}, s.IPAllowlist...), Status: s.Status,
		URL: "/v1/share/" + s.ID, CreatedAt: rfc3339(s.CreatedAt)}
}

func badShare(detail string) error { return problem.BadRequest(problem.TypeInvalidRequest, detail) }

// validate checks the fields that need no lookup and fills the defaults.
func (in *shareRequest) validate(now time.Time) error {
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

// recipient resolves and checks the recipient of a share the caller p makes.
func (h *Handlers) shareRecipient(r *http.Request, p auth.Principal, in *shareRequest, sh *store.Share) error {
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
	var in shareRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	now := time.Now()
	if err := in.validate(now); err != nil {
		return err
	}
	if p.Type == auth.PrincipalAgent && *in.RecipientType != "creator" {
		return problem.New(http.StatusForbidden, problem.TypeForbidden, "agents may share only with recipient_type creator")
	}
	sec, err := h.Shares.SecretByID(r.Context(), p.OrgID, secretID)
	if errors.Is(err, store.ErrNotFound) {
		return problem.NotFound("secret")
	}
	if err != nil {
		return err
	}
	if _, err := h.authorize(r, sec.VaultID, sec.Path, policy.PermissionRead); err != nil {
		return err
	}
	sh := store.Share{OrgID: p.OrgID, ID: uuid.Must(uuid.NewV7()).String(), SecretID: sec.ID, VaultID: sec.VaultID,
		Path: sec.Path, CreatorType: p.Type, CreatorID: p.ID, RecipientType: *in.RecipientType, ExpiresAt: *in.ExpiresAt,
		MaxAccessCount: *in.MaxAccessCount, IPAllowlist: in.IPAllowlist}
	if err := h.shareRecipient(r, p, &in, &sh); err != nil {
		return err
	}
	if in.Passphrase != nil {
		hash, err := auth.HashPassword(r.Context(), *in.Passphrase)
		if err != nil {
			return err
		}
		sh.PassphraseHash = &hash
	}
	entry.SetResource("share/" + sh.ID)
	out, err := h.Shares.CreateShare(r.Context(), sh, entry.Prepare(http.StatusCreated))
	if errors.Is(err, store.ErrNotFound) {
		return problem.NotFound("secret")
	}
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
