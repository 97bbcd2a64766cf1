package policy

import "fmt"

// Role is a member's role in an organization.
type Role string

// The roles of SPEC-DECISIONS "Roles".
const (
	RoleOwner  Role = "owner"
	RoleAdmin  Role = "admin"
	RoleMember Role = "member"
)

// ParseRole accepts exactly "owner", "admin" or "member" (lowercase, no
// trimming); anything else wraps ErrInvalidRole.
func ParseRole(s string) (Role, error) {
	switch r := Role(s); r {
	case RoleOwner, RoleAdmin, RoleMember:
		return r, nil
	}
	return "", fmt.Errorf("%w: role must be owner, admin or member", ErrInvalidRole)
}

// BypassesPolicies reports whether r may do everything in its organization
// without a policy: owners and admins do; members (and agents, which have
// no role) need one.
func (r Role) BypassesPolicies() bool {
	return r == RoleOwner || r == RoleAdmin
}
