package proxy

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/auth"
	"github.com/opencustody/ocv/proxy/httperr"
)

// IPRuleCacheTTL bounds how long a replica uses an organization's IP rules
// without reading them again. Changes on this replica drop the entry at
// once, other replicas' changes arrive through LISTEN/NOTIFY; the TTL
// covers a lost notification.
const IPRuleCacheTTL = 5 * time.Second

// ipRuleCacheCap bounds the organizations cached at once.
const ipRuleCacheCap = 10_000

// IPRuleSource loads an organization's IP rules.
type IPRuleSource interface {
	OrgIPRules(ctx context.Context, orgID string) ([]store.IPRule, error)
}

// ipRuleSet is an organization's rules as the filter decides on them.
type ipRuleSet struct {
	allow, block []netip.Prefix
}

func newIPRuleSet(rules []store.IPRule) ipRuleSet {
	var s ipRuleSet
	for _, r := range rules {
		if r.RuleType == "block" {
			s.block = append(s.block, r.CIDR)
		} else {
			s.allow = append(s.allow, r.CIDR)
		}
	}
	return s
}

// allows decides for a client address: any matching block rule denies
// (block beats allow); with at least one allow rule the address must match
// one; with no rules everything passes. IPv4-mapped IPv6 addresses are
// compared as IPv4. An unknown address passes only an organization
// without rules (fail closed).
func (s ipRuleSet) allows(a netip.Addr) bool {
	if len(s.allow) == 0 && len(s.block) == 0 {
		return true
	}
	if !a.IsValid() {
		return false
	}
	a = a.Unmap().WithZone("")
	for _, p := range s.block {
		if p.Contains(a) {
			return false
		}
	}
	if len(s.allow) == 0 {
		return true
	}
	for _, p := range s.allow {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// IPRuleCache holds each organization's rule set for IPRuleCacheTTL.
type IPRuleCache struct {
	src   IPRuleSource
	ttl   time.Duration
	mu    sync.Mutex
	sets  map[string]cachedRuleSet
	epoch uint64 // moves on with every invalidation
}

type cachedRuleSet struct {
	set   ipRuleSet
	until time.Time
}

// NewIPRuleCache returns an empty cache over src whose entries last ttl
// (IPRuleCacheTTL in production).
func NewIPRuleCache(src IPRuleSource, ttl time.Duration) *IPRuleCache {
	return &IPRuleCache{src: src, ttl: ttl, sets: map[string]cachedRuleSet{}}
}

// rules returns the organization's rule set, loading it when missing or
// stale. A load that raced with an invalidation is used once, not cached.
func (c *IPRuleCache) rules(ctx context.Context, orgID string) (ipRuleSet, error) {
	now := time.Now()
	c.mu.Lock()
	e, ok := c.sets[orgID]
	epoch := c.epoch
	c.mu.Unlock()
	if ok && now.Before(e.until) {
		return e.set, nil
	}
	rules, err := c.src.OrgIPRules(ctx, orgID)
	if err != nil {
		return ipRuleSet{}, err
	}
	set := newIPRuleSet(rules)
	c.mu.Lock()
	if c.epoch == epoch {
		if len(c.sets) >= ipRuleCacheCap {
			clear(c.sets)
		}
		c.sets[orgID] = cachedRuleSet{set: set, until: now.Add(c.ttl)}
	}
	c.mu.Unlock()
	return set, nil
}

// Invalidate drops the organization's cached rules.
func (c *IPRuleCache) Invalidate(orgID string) {
	c.mu.Lock()
	delete(c.sets, orgID)
	c.epoch++
	c.mu.Unlock()
}

// Flush drops every cached rule set.
func (c *IPRuleCache) Flush() {
	c.mu.Lock()
	clear(c.sets)
	c.epoch++
	c.mu.Unlock()
}

// ipFilter is spec order 5, right after authentication: the caller's
// organization's IP rules decide on the client address (the one the audit
// event records; see clientIP). Denied: 403 ip_denied. When the rules
// cannot be read the request fails closed with 500 internal_error. Public
// routes have no organization and pass.
func (s *Server) ipFilter(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := auth.FromContext(r.Context())
		if route := routeFrom(r.Context()); route == nil || route.Access == Public || !ok || p.OrgID == "" {
			next.ServeHTTP(w, r)
			return
		}
		set, err := s.ipRules.rules(r.Context(), p.OrgID)
		if err != nil {
			ctx := r.Context()
			s.log.LogAttrs(ctx, httperr.LogLevel(ctx), "loading ip rules; failing the request",
				slog.String("request_id", auditlog.FromContext(ctx).Event.RequestID), slog.String("org_id", p.OrgID),
				slog.Bool("client_gone", httperr.ClientGone(ctx)), slog.Any("err", err))
			problem.Write(w, problem.New(http.StatusInternalServerError, problem.TypeInternal,
				"the organization's IP rules could not be read, so the request was not served"))
			return
		}
		addr, _ := netip.ParseAddr(auditlog.FromContext(r.Context()).Event.ClientIP)
		if !set.allows(addr) {
			problem.Write(w, problem.New(http.StatusForbidden, problem.TypeIPDenied,
				"the organization's IP rules do not allow requests from this address"))
			return
		}
		next.ServeHTTP(w, r)
	})
}
