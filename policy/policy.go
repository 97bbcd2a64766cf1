package policy

import (
	"fmt"
	"time"
	"unicode"
	"unicode/utf8"
)

// Permission is what a policy grants or denies on matching paths.
type Permission string

// The permissions a policy may name.
const (
	PermissionRead  Permission = "read"
	PermissionWrite Permission = "write"
)

// Effect says whether a policy allows or denies.
type Effect string

// The effects a policy may have.
const (
	EffectAllow Effect = "allow"
	EffectDeny  Effect = "deny"
)

// The principal types a policy may target.
const (
	PrincipalUser  = "user"
	PrincipalAgent = "agent"
)

// Limits on a policy's fields, checked by Validate.
const (
	MaxIDBytes          = 128 // ID and PrincipalID
	MaxIPCIDRs          = 64  // Conditions.IPCIDRs entries
	MaxEnvironments     = 32  // Conditions.EnvironmentIn entries
	MaxEnvironmentBytes = 64  // one environment tag
)

// Policy is one grant (the spec's "Policy (grant)"): it allows or denies a
// principal read and/or write on the secret paths its Pattern matches in
// one vault. Field names in error messages are the API's JSON names.
type Policy struct {
	ID            string       // required; deciding policy id in a Decision
	Pattern       string       // secret_path_pattern, see Match
	PrincipalType string       // PrincipalUser or PrincipalAgent
	PrincipalID   string       // must equal the caller's id for the policy to apply
	Permissions   []Permission // one or both of read, write; no duplicates
	Effect        Effect       // allow or deny
	Priority      int          // higher wins; deny wins a tie
	Conditions    Conditions   // all present conditions must hold
	ExpiresAt     *time.Time   // the policy stops applying at this instant
}

// Validate checks every field of p. Errors wrap ErrInvalidPolicy (and
// ErrInvalidPattern for the pattern) and name the field.
func (p Policy) Validate() error {
	if why := idProblem(p.ID); why != "" {
		return invalid("id", why)
	}
	if err := ValidatePattern(p.Pattern); err != nil {
		return fmt.Errorf("%w: secret_path_pattern: %w", ErrInvalidPolicy, err)
	}
	if p.PrincipalType != PrincipalUser && p.PrincipalType != PrincipalAgent {
		return invalid("principal_type", "must be user or agent")
	}
	if why := idProblem(p.PrincipalID); why != "" {
		return invalid("principal_id", why)
	}
	if err := validatePermissions(p.Permissions); err != nil {
		return err
	}
	if p.Effect != EffectAllow && p.Effect != EffectDeny {
		return invalid("effect", "must be allow or deny")
	}
	if e := p.ExpiresAt; e != nil && (e.IsZero() || e.Unix() < minUnix || e.Unix() > maxUnix) {
		return invalid("expires_at", "must be an instant in the years 1 to 9999 when present")
	}
	return p.Conditions.validate()
}

// Prepare validates p and caches the parsed form of its conditions (the IP
// prefixes), so that evaluating p many times does not parse them again.
// The cache is keyed by the CIDR strings themselves: if they change later,
// evaluation notices and parses afresh, so a stale cache is never used.
// Policies that were never prepared evaluate the same, only slower.
func (p *Policy) Prepare() error {
	if err := p.Validate(); err != nil {
		return err
	}
	return p.Conditions.prepare()
}

// names reports whether p names perm.
func (p *Policy) names(perm Permission) bool {
	for _, q := range p.Permissions {
		if q == perm {
			return true
		}
	}
	return false
}

// expired reports whether p has stopped applying at now.
func (p *Policy) expired(now time.Time) bool {
	return p.ExpiresAt != nil && !now.Before(*p.ExpiresAt)
}

func validatePermissions(perms []Permission) error {
	if len(perms) == 0 {
		return invalid("permissions", "must name read, write or both")
	}
	seen := map[Permission]bool{}
	for _, q := range perms {
		if q != PermissionRead && q != PermissionWrite {
			return invalid("permissions", "may hold only read and write")
		}
		if seen[q] {
			return invalid("permissions", "must not repeat a permission")
		}
		seen[q] = true
	}
	return nil
}

// idProblem returns why s is not a usable identifier, or "".
func idProblem(s string) string {
	return textProblem(s, MaxIDBytes)
}

// textProblem checks a short free-text token: 1..max bytes of UTF-8 without
// control characters.
func textProblem(s string, max int) string {
	switch {
	case s == "":
		return "is required"
	case len(s) > max:
		return fmt.Sprintf("must be at most %d bytes", max)
	case !utf8.ValidString(s):
		return "must be valid UTF-8"
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return "must not contain control characters"
		}
	}
	return ""
}

func invalid(field, why string) error {
	return fmt.Errorf("%w: %s %s", ErrInvalidPolicy, field, why)
}
