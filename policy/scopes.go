package policy

import (
	"slices"
	"time"
)

// Scopes returns an agent's scopes (service spec, "What the service does"
// item 7): its explicit scopes when it has any, else the patterns of its
// unexpired allow policies at now. The result is deduplicated, sorted and
// never nil ([] means no access). policies must be the agent's own; invalid
// patterns are left out.
func Scopes(explicit []string, policies []Policy, now time.Time) []string {
	out := []string{}
	if len(explicit) > 0 {
		for _, s := range explicit {
			if patternProblem(s) == "" {
				out = append(out, s)
			}
		}
	} else {
		for i := range policies {
			p := &policies[i]
			if p.Effect == EffectAllow && !p.expired(now) && patternProblem(p.Pattern) == "" {
				out = append(out, p.Pattern)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// InScopes reports whether some scope pattern matches path. No scopes, an
// invalid path or only invalid patterns → false.
func InScopes(scopes []string, path string) bool {
	for _, s := range scopes {
		if Match(s, path) {
			return true
		}
	}
	return false
}
