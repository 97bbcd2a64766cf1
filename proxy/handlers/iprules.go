package handlers

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
)

// MaxIPRuleDescription bounds an IP rule's description, in characters.
const MaxIPRuleDescription = 255

func toIPRule(r store.IPRule) api.IPRule {
	return api.IPRule{ID: r.ID, CIDR: r.CIDR.String(), RuleType: r.RuleType, Description: r.Description,
		CreatedBy: r.CreatedBy, CreatedAt: rfc3339(r.CreatedAt)}
}

// ParseIPRuleCIDR reads an IPv4 or IPv6 CIDR, masked; a bare address means
// its own /32 or /128, and an IPv4-mapped IPv6 range of /96 or longer is
// the IPv4 range it maps (the filter compares unmapped client addresses).
func ParseIPRuleCIDR(s string) (netip.Prefix, error) {
	s = strings.TrimSpace(s)
	var p netip.Prefix
	if strings.Contains(s, "/") {
		var err error
		if p, err = netip.ParsePrefix(s); err != nil {
			return netip.Prefix{}, badField("cidr", "must be an IPv4 or IPv6 CIDR such as 203.0.113.0/24 or 2001:db8::/32")
		}
	} else {
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" {
			return netip.Prefix{}, badField("cidr", "must be an IPv4 or IPv6 CIDR such as 203.0.113.0/24 or 2001:db8::/32")
		}
		p = netip.PrefixFrom(a, a.BitLen())
	}
	if a := p.Addr(); a.Is4In6() {
		if p.Bits() < 96 {
			return netip.Prefix{}, badField("cidr", "an IPv4-mapped IPv6 range must be /96 or longer; give the IPv4 CIDR instead")
		}
		p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
	}
	return p.Masked(), nil
}

func orgAdmin(r *http.Request, what string) error {
	if role := principal(r).Role; role != "owner" && role != "admin" {
		return problem.New(http.StatusForbidden, problem.TypeForbidden, "only owners and admins may "+what)
	}
	return nil
}

func (h *Handlers) ipRulesChanged(orgID string) {
	if h.IPRulesChanged != nil {
		h.IPRulesChanged(orgID)
	}
}

// ListIPRules answers GET /v1/security/ip-rules: the organization's IP
// rules in id order (every member may read them).
func (h *Handlers) ListIPRules(w http.ResponseWriter, r *http.Request) error {
	orgID := principal(r).OrgID
	return listByID(w, r, "security/ip-rules", func(ctx context.Context, after string, limit int) ([]store.IPRule, error) {
		return h.Orgs.ListIPRules(ctx, orgID, after, limit)
	}, toIPRule, func(r store.IPRule) string { return r.ID })
}

// CreateIPRule answers POST /v1/security/ip-rules (owners and admins).
func (h *Handlers) CreateIPRule(w http.ResponseWriter, r *http.Request) error {
	id := newID()
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("security/ip-rule/" + id)
	if err := orgAdmin(r, "manage IP rules"); err != nil {
		return err
	}
	var in api.IPRuleCreate
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.CIDR == nil || in.RuleType == nil {
		return problem.BadRequest(problem.TypeInvalidRequest, "cidr and rule_type are required")
	}
	if *in.RuleType != "allow" && *in.RuleType != "block" {
		return badField("rule_type", "must be allow or block")
	}
	cidr, err := ParseIPRuleCIDR(*in.CIDR)
	if err != nil {
		return err
	}
	desc := ""
	if in.Description != nil {
		desc = strings.TrimSpace(*in.Description)
		if !utf8.ValidString(desc) || utf8.RuneCountInString(desc) > MaxIPRuleDescription ||
			strings.IndexFunc(desc, unicode.IsControl) >= 0 {
			return badField("description", "must be at most 255 characters without control characters")
		}
	}
	p := principal(r)
	out, err := h.Orgs.CreateIPRule(r.Context(), store.IPRule{OrgID: p.OrgID, ID: id, CIDR: cidr, RuleType: *in.RuleType,
		Description: desc, CreatedBy: p.ID}, entry.Prepare(http.StatusCreated))
	switch {
	case errors.Is(err, store.ErrConflict):
		return problem.New(http.StatusConflict, problem.TypeConflict, "the organization has this rule already")
	case errors.Is(err, store.ErrLimit):
		return problem.BadRequest(problem.TypeInvalidRequest, "the organization already has 1000 IP rules, the maximum")
	case err != nil:
		return err
	}
	h.ipRulesChanged(p.OrgID)
	return writeJSON(w, http.StatusCreated, toIPRule(out))
}

// DeleteIPRule answers DELETE /v1/security/ip-rules/{rule_id} (owners and admins).
func (h *Handlers) DeleteIPRule(w http.ResponseWriter, r *http.Request) error {
	id, entry, err := auditedID(r, "rule_id", "rule", "security/ip-rule/")
	if err != nil {
		return err
	}
	if err := orgAdmin(r, "manage IP rules"); err != nil {
		return err
	}
	orgID := principal(r).OrgID
	if err := h.Orgs.DeleteIPRule(r.Context(), orgID, id, entry.Prepare(http.StatusNoContent)); err != nil {
		return err
	}
	h.ipRulesChanged(orgID)
	w.WriteHeader(http.StatusNoContent)
	return nil
}
