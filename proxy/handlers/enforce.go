package handlers

import (
	"context"
	"errors"
	"net/http"
	"net/netip"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/policy"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/auth"
)

// The proxy's fast-path policy check (the enclave checks again before it
// touches a key). Owners and admins bypass policies; members and agents
// need an allowing policy for the path, and an agent's token scopes must
// cover the path too. The caller's policies of the vault are loaded per
// request with one indexed query.

var errPolicyDenied = problem.New(http.StatusForbidden, problem.TypePolicyDenied,
	"no policy allows this action on this secret path")

// bypasses reports whether p needs no policy (an owner or admin user).
func bypasses(p auth.Principal) bool {
	return p.Type == auth.PrincipalUser && policy.Role(p.Role).BypassesPolicies()
}

// accessCheck decides paths of one vault for one caller.
type accessCheck struct {
	p        auth.Principal
	bypass   bool
	policies []policy.Policy
	req      policy.Request
	// set and mac are the vault's sealed policy set, which the enclave
	// needs from members and agents (nil for callers who bypass).
	set, mac []byte
}

// access loads what deciding the caller's access to vaultID needs.
func (h *Handlers) access(r *http.Request, vaultID string) (*accessCheck, error) {
	return h.accessOf(r.Context(), principal(r), auditlog.FromContext(r.Context()).Event.ClientIP, vaultID)
}

// accessOf is access for principal p calling from clientIP (share opens
// decide with the share creator's authority and the opener's address).
func (h *Handlers) accessOf(ctx context.Context, p auth.Principal, clientIP, vaultID string) (*accessCheck, error) {
	c := &accessCheck{p: p, bypass: bypasses(p)}
	if c.bypass {
		return c, nil
	}
	ps, err := h.Policies.PrincipalPolicies(ctx, p.OrgID, vaultID, p.Type, p.ID)
	if err != nil {
		return nil, err
	}
	for i := range ps {
		_ = ps[i].Prepare() // an invalid policy is kept: Evaluate denies on it
	}
	c.policies = ps
	c.req = policy.Request{PrincipalType: p.Type, PrincipalID: p.ID, Now: h.now()}
	if ip, err := netip.ParseAddr(clientIP); err == nil {
		c.req.ClientIP = ip
	}
	if p.Agent != nil {
		c.req.Environment = p.Agent.Environment
	}
	return c, nil
}

// allows reports whether the caller may perm on path.
func (c *accessCheck) allows(path string, perm policy.Permission) bool {
	if c.bypass {
		return true
	}
	if c.p.Type == auth.PrincipalAgent && (c.p.Agent == nil || !policy.InScopes(c.p.Agent.Scopes, path)) {
		return false
	}
	req := c.req
	req.Path, req.Permission = path, perm
	return policy.Evaluate(c.policies, req).Allowed
}

// holdsAllow reports whether the caller may see the vault at all: it
// bypasses policies or holds an unexpired allow policy in it.
func (c *accessCheck) holdsAllow() bool {
	if c.bypass {
		return true
	}
	for i := range c.policies {
		q := &c.policies[i]
		if q.Effect == policy.EffectAllow && (q.ExpiresAt == nil || c.req.Now.Before(*q.ExpiresAt)) {
			return true
		}
	}
	return false
}

// authorize answers 403 policy_denied unless the caller may perm on path.
func (h *Handlers) authorize(r *http.Request, vaultID, path string, perm policy.Permission) (*accessCheck, error) {
	c, err := h.access(r, vaultID)
	if err != nil {
		return nil, err
	}
	if !c.allows(path, perm) {
		return nil, errPolicyDenied
	}
	if err := h.loadPolicySet(r.Context(), c, vaultID); err != nil {
		return nil, err
	}
	return c, nil
}

// loadPolicySet loads the vault's sealed policy set into c unless c
// bypasses policies: the enclave decides again from it.
func (h *Handlers) loadPolicySet(ctx context.Context, c *accessCheck, vaultID string) error {
	if c.bypass {
		return nil
	}
	var err error
	if _, c.set, c.mac, err = h.Policies.PolicySet(ctx, c.p.OrgID, vaultID); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}

// maxListScan bounds how many secrets one filtered listing page scans.
const maxListScan = 25_000

// visibleSecrets lists up to limit+1 secrets after cursor that the caller
// may read, scanning in batches (at most maxListScan rows per page).
func (h *Handlers) visibleSecrets(r *http.Request, c *accessCheck, vaultID, prefix, cursor string, limit int) ([]store.Secret, error) {
	orgID := c.p.OrgID
	if c.bypass {
		return h.Vaults.ListSecrets(r.Context(), orgID, vaultID, prefix, cursor, limit+1)
	}
	const batch = 500
	var out []store.Secret
	for scanned := 0; scanned < maxListScan; scanned += batch {
		rows, err := h.Vaults.ListSecrets(r.Context(), orgID, vaultID, prefix, cursor, batch)
		if err != nil {
			return nil, err
		}
		for _, s := range rows {
			if c.allows(s.Path, policy.PermissionRead) {
				if out = append(out, s); len(out) == limit+1 {
					return out, nil
				}
			}
		}
		if len(rows) < batch {
			break
		}
		cursor = rows[len(rows)-1].Path
	}
	return out, nil
}
