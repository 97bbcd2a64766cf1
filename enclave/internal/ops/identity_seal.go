package ops

import (
	"context"
	"fmt"

	"github.com/opencustody/ocv/enclave/internal/floors"
	"github.com/opencustody/ocv/enclave/internal/tokens"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/policy"
)

// Org roles a membership record may hold.
const (
	roleOwner  = "owner"
	roleAdmin  = "admin"
	roleMember = "member"
)

// SealIdentity seals new identity records once the enclave has checked the
// authority for them itself (wire.SealIdentityRequest lists the rules).
func (id *identity) sealIdentity(ctx context.Context, req *wire.SealIdentityRequest) (wire.SealIdentityResponse, error) {
	if len(req.Records) == 0 {
		return wire.SealIdentityResponse{}, fmt.Errorf("%w: no record to seal", wire.ErrBadRequest)
	}
	recs := make([]*wire.IdentityRecord, len(req.Records))
	for i, b := range req.Records {
		recs[i] = new(wire.IdentityRecord)
		if err := recs[i].Decode(b); err != nil {
			return wire.SealIdentityResponse{}, err
		}
		if recs[i].Kind == wire.IdentityMember && !validOrgRole(recs[i].Role) {
			return wire.SealIdentityResponse{}, fmt.Errorf("%w: membership role", wire.ErrBadRequest)
		}
	}
	cur, err := id.openAll(ctx, req.Current)
	if err != nil {
		return wire.SealIdentityResponse{}, err
	}
	switch {
	case req.Token == "" && req.OldPassword == "" && len(req.Current) == 1:
		err = authorizePlatformRole(recs, cur)
	case req.Token == "" && req.OldPassword == "":
		err = id.authorizeSignup(ctx, recs)
	case req.Token == "":
		err = id.authorizePasswordChange(ctx, recs, cur, req.OldPassword)
	default:
		err = id.authorizeByToken(ctx, req.Token, recs, cur)
	}
	if err != nil {
		return wire.SealIdentityResponse{}, err
	}
	out := wire.SealIdentityResponse{MACs: make([][]byte, len(recs))}
	for i, r := range recs {
		if _, out.MACs[i], err = id.seal(ctx, r); err != nil {
			return wire.SealIdentityResponse{}, err
		}
	}
	for _, r := range recs {
		if r.Kind != wire.IdentityUser || r.Version == 1 {
			continue
		}
		// A changed user record (password, platform role): every token of
		// the user issued before now stops working.
		if err := id.floors.Set(ctx, "cutoff/-/"+r.UserID, floors.Floor{NotBefore: id.now().UnixMilli()}); err != nil {
			return wire.SealIdentityResponse{}, fmt.Errorf("%w: %w", wire.ErrUnavailable, err)
		}
	}
	return out, nil
}

// validPlatformRole: none, admin or super_admin.
func validPlatformRole(r string) bool { return r == "" || r == "admin" || r == "super_admin" }

// authorizePlatformRole accepts a new version of one user record that
// changes only its platform role. Platform roles are the proxy's own
// administration and grant nothing in the enclave (no enclave check reads
// them), so the proxy's word is all there is to check; the password,
// email and status cannot change this way.
func authorizePlatformRole(recs []*wire.IdentityRecord, cur map[wire.IdentityKind]*wire.IdentityRecord) error {
	c := cur[wire.IdentityUser]
	if len(recs) != 1 || c == nil {
		return forbidden("a platform role change is one user record")
	}
	n := recs[0]
	if n.Kind != wire.IdentityUser || n.UserID != c.UserID || n.Email != c.Email || n.PasswordVerifier != c.PasswordVerifier ||
		n.Status != c.Status || !validPlatformRole(n.Role) {
		return forbidden("a platform role change changes only the platform role")
	}
	return nil
}

func validOrgRole(r string) bool { return r == roleOwner || r == roleAdmin || r == roleMember }

// authorizeSignup accepts exactly a new organization, its new owner and
// the owner's membership, all version 1 and unknown to the floors.
func (id *identity) authorizeSignup(ctx context.Context, recs []*wire.IdentityRecord) error {
	if len(recs) != 3 {
		return forbidden("signup needs an org, a user and a membership")
	}
	o, u, m := recs[0], recs[1], recs[2]
	switch {
	case o.Kind != wire.IdentityOrg || u.Kind != wire.IdentityUser || m.Kind != wire.IdentityMember:
		return forbidden("signup records out of order")
	case o.OrgID != m.OrgID || o.UserID != u.UserID || m.UserID != u.UserID:
		return forbidden("signup records disagree")
	// A platform role (the proxy's own administration) grants nothing in
	// the enclave; a new account may carry one (docs/threat-model.d).
	case m.Role != roleOwner || !validPlatformRole(u.Role) || u.Status != wire.StatusActive || m.Status != wire.StatusActive:
		return forbidden("signup grants more than an owner")
	case o.Version != 1 || u.Version != 1 || m.Version != 1:
		return forbidden("signup records are not new")
	}
	for _, r := range recs {
		absent, err := id.floorAbsent(ctx, r.FloorName())
		if err != nil {
			return err
		}
		if !absent {
			return forbidden("signup of an existing organization or user")
		}
	}
	return nil
}

// authorizePasswordChange accepts a new version of one user record that
// changes only its password verifier, when the old password matches the
// current record.
func (id *identity) authorizePasswordChange(ctx context.Context, recs []*wire.IdentityRecord, cur map[wire.IdentityKind]*wire.IdentityRecord, old string) error {
	c := cur[wire.IdentityUser]
	if len(recs) != 1 || len(cur) != 1 || c == nil {
		return forbidden("a password change is one user record")
	}
	n := recs[0]
	if n.Kind != wire.IdentityUser || n.UserID != c.UserID || n.Email != c.Email || n.Role != c.Role || n.Status != c.Status {
		return forbidden("a password change changes only the password")
	}
	if c.Status != wire.StatusActive || !checkPassword(ctx, c.PasswordVerifier, old) {
		return forbidden("old password does not match")
	}
	return nil
}

// authorizeByToken accepts records changed by the token's user: an owner
// or admin of the records' organization for memberships, agents and
// invited (new) users; the key's own user (or an owner or admin) for an
// API key; the user itself setting a first password.
func (id *identity) authorizeByToken(ctx context.Context, token string, recs []*wire.IdentityRecord, cur map[wire.IdentityKind]*wire.IdentityRecord) error {
	c, err := id.authz.verifyToken(ctx, token)
	if err != nil {
		return err
	}
	admin := c.PrincipalType == policy.PrincipalUser && c.Role.BypassesPolicies() // owner or admin
	for _, r := range recs {
		if err := id.mayChange(ctx, &c, admin, r, cur); err != nil {
			return err
		}
	}
	return nil
}

func (id *identity) mayChange(ctx context.Context, c *tokens.Claims, admin bool, r *wire.IdentityRecord, cur map[wire.IdentityKind]*wire.IdentityRecord) error {
	switch r.Kind {
	case wire.IdentityMember:
		if r.OrgID != c.OrgID || !admin {
			return forbidden("membership change without an owner or admin")
		}
		if r.Role == roleOwner && string(c.Role) != roleOwner {
			return forbidden("only an owner grants the owner role")
		}
	case wire.IdentityAgent:
		if r.OrgID != c.OrgID || !admin {
			return forbidden("agent change without an owner or admin")
		}
	case wire.IdentityAPIKey:
		if c.PrincipalType != policy.PrincipalUser || r.OrgID != c.OrgID || (r.UserID != c.Subject && !admin) {
			return forbidden("api key of another user")
		}
	case wire.IdentityShare: // only the creator shares with its own authority
		if r.OrgID != c.OrgID || r.UserID != c.Subject {
			return forbidden("share of another principal")
		}
	case wire.IdentityUser:
		if c.PrincipalType != policy.PrincipalUser {
			return forbidden("user record changed by an agent")
		}
		absent, err := id.floorAbsent(ctx, r.FloorName())
		if err != nil {
			return err
		}
		if absent { // an invitation creates the user
			if !admin || r.Role != "" || r.Version != 1 {
				return forbidden("user creation without an owner or admin")
			}
			return nil
		}
		// The user itself sets a first password.
		old := cur[wire.IdentityUser]
		if old == nil || old.UserID != r.UserID || r.UserID != c.Subject || old.PasswordVerifier != "" ||
			r.Email != old.Email || r.Role != old.Role || r.Status != old.Status {
			return forbidden("user record change without the old password")
		}
	default:
		return forbidden("record kind not sealed by a token")
	}
	return nil
}
