package wire

import (
	"fmt"
	"strings"
)

// Identity records.
//
// An identity record is what a credential must match before the enclave
// mints a token for it (OpMintToken), and the only source of that token's
// claims. The enclave alone seals records (OpSealIdentity): it MACs the
// record bytes with its identity MAC key and advances the record's
// anti-rollback floor (FloorName) to {Version, SHA-256 of the bytes}. The
// proxy stores the bytes and the MAC and presents them again; a record
// that was changed, or superseded by a newer version, is refused.
//
// One struct carries every kind; each kind uses a fixed subset of the
// fields and the others must be empty (checked by Decode and Append, so
// that one record has exactly one encoding). The encoding is
//
//	"oid1" ‖ kind u8 ‖ version u64 ‖ org ‖ user ‖ id ‖ email ‖ role ‖
//	status ‖ password verifier ‖ environment ‖ flags u8 ‖ expires u64 ‖
//	scopes (u16 count, strings) ‖ verifiers (u16 count, 32 bytes each)
//
// with every string length-prefixed (u32) and bounded.

// IdentityKind is the kind of an identity record.
type IdentityKind uint8

// Identity record kinds.
const (
	// IdentityUser: UserID, Email, PasswordVerifier (argon2id PHC string,
	// or empty: no password), Role (platform role: "", admin,
	// super_admin), Status.
	IdentityUser IdentityKind = 1
	// IdentityMember: OrgID, UserID, Role (owner, admin, member), Status.
	IdentityMember IdentityKind = 2
	// IdentityAgent: OrgID, ID (agent id), Status, Scopes (HasScopes),
	// Environment, Flags, Verifiers (SHA-256 of each live API key),
	// ExpiresMs (its keys' expiry; 0: never).
	IdentityAgent IdentityKind = 3
	// IdentityAPIKey: OrgID, UserID, ID (key id), Verifiers (exactly one),
	// ExpiresMs (0: never).
	IdentityAPIKey IdentityKind = 4
	// IdentityRefresh: OrgID, UserID, ID (family id), Verifiers (exactly
	// one: the current refresh token's), ExpiresMs.
	IdentityRefresh IdentityKind = 5
	// IdentityOrg: OrgID, UserID (the founding owner). Sealed once, at
	// signup: an organization exists for the enclave once its floor does,
	// so that signup cannot claim an existing organization.
	IdentityOrg IdentityKind = 6
	// IdentityShare: OrgID, UserID (the creator: a user or an agent id),
	// ID (share id), Verifiers (exactly one: SHA-256 of the share's
	// capability), ExpiresMs. Sealed with the creator's own token when the
	// share is made; opening the share mints a token of the creator from
	// it and the creator's current records.
	IdentityShare IdentityKind = 7
)

// Identity record statuses.
const (
	StatusActive   = "active"
	StatusDisabled = "disabled"
	StatusDeleted  = "deleted"
)

// Agent record flags.
const (
	FlagIntentsAPI uint8 = 1 << iota
	FlagExecutionIntents
	FlagIntentsRequireTEE
	FlagExecutionRequireTEE
	// FlagHasScopes: the agent has a scope list (possibly empty); without
	// it the token carries no scope claim (no scope check).
	FlagHasScopes
	flagsAll = FlagIntentsAPI | FlagExecutionIntents | FlagIntentsRequireTEE | FlagExecutionRequireTEE | FlagHasScopes
)

// Identity record bounds.
const (
	MaxEmailLen        = 254
	MaxVerifierLen     = 256 // a PHC string
	MaxRoleLen         = 32
	MaxScopes          = 256
	MaxScopeLen        = 1024
	MaxKeyVerifiers    = 16
	MaxIdentityRecord  = 2 * MaxScopes * (MaxScopeLen + 4)
	IdentityMACLen     = 32
	identityRecordsTag = "oid1"
)

// IdentityRecord is one identity record (see the kinds for the fields each
// uses).
type IdentityRecord struct {
	Kind             IdentityKind
	Version          uint64
	OrgID            string
	UserID           string
	ID               string
	Email            string
	Role             string
	Status           string
	PasswordVerifier string
	Environment      string
	Flags            uint8
	ExpiresMs        int64
	Scopes           []string
	Verifiers        [][32]byte
}

// idOK refuses an id that cannot be part of a floor name.
func idOK(s string) bool {
	return s != "" && len(s) <= MaxIDLen && !strings.ContainsFunc(s, func(r rune) bool { return r <= 0x20 || r == 0x7f || r == '/' })
}

// Validate checks that r is a well-formed record of its kind: the fields
// of the kind set and bounded, the others empty.
func (r *IdentityRecord) Validate() error {
	bad := func(why string) error { return fmt.Errorf("%w: identity record: %s", ErrBadRequest, why) }
	if r.Version == 0 {
		return bad("version 0")
	}
	if r.ExpiresMs < 0 || len(r.Email) > MaxEmailLen || len(r.Role) > MaxRoleLen || len(r.Status) > MaxRoleLen ||
		len(r.PasswordVerifier) > MaxVerifierLen || len(r.Environment) > MaxIDLen || len(r.Scopes) > MaxScopes ||
		len(r.Verifiers) > MaxKeyVerifiers || r.Flags&^flagsAll != 0 {
		return bad("field out of bounds")
	}
	for _, s := range r.Scopes {
		if len(s) > MaxScopeLen {
			return bad("scope too long")
		}
	}
	// want lists which fields the kind uses.
	type use struct{ org, user, id, email, role, status, pw, agent, expires bool }
	var u use
	nv := -1 // verifier count: -1 any up to the bound, else exactly
	switch r.Kind {
	case IdentityUser:
		u = use{user: true, email: true, role: true, status: true, pw: true}
		nv = 0
	case IdentityMember:
		u = use{org: true, user: true, role: true, status: true}
		nv = 0
	case IdentityAgent:
		u = use{org: true, id: true, status: true, agent: true, expires: true}
	case IdentityAPIKey, IdentityRefresh, IdentityShare:
		u = use{org: true, user: true, id: true, expires: true}
		nv = 1
	case IdentityOrg:
		u = use{org: true, user: true}
		nv = 0
	default:
		return bad("unknown kind")
	}
	switch {
	case u.org != idOK(r.OrgID) || !u.org && r.OrgID != "":
		return bad("org id")
	case u.user != idOK(r.UserID) || !u.user && r.UserID != "":
		return bad("user id")
	case u.id != idOK(r.ID) || !u.id && r.ID != "":
		return bad("id")
	case !u.email && r.Email != "", !u.role && r.Role != "", !u.pw && r.PasswordVerifier != "":
		return bad("field of another kind")
	case u.status != (r.Status != ""):
		return bad("status")
	case !u.agent && (r.Environment != "" || r.Flags != 0 || len(r.Scopes) != 0):
		return bad("agent field on another kind")
	case r.Flags&FlagHasScopes == 0 && len(r.Scopes) != 0:
		return bad("scopes without the scopes flag")
	case !u.expires && r.ExpiresMs != 0:
		return bad("expiry on another kind")
	case nv >= 0 && len(r.Verifiers) != nv:
		return bad("verifier count")
	}
	if r.Status != "" && r.Status != StatusActive && r.Status != StatusDisabled && r.Status != StatusDeleted {
		return bad("status")
	}
	return nil
}

// FloorName is the anti-rollback floor of the record (docs: the id/...
// names): one per principal, membership, key or refresh family.
func (r *IdentityRecord) FloorName() string {
	switch r.Kind {
	case IdentityUser:
		return "id/user/" + r.UserID
	case IdentityMember:
		return "id/member/" + r.OrgID + "/" + r.UserID
	case IdentityAgent:
		return "id/agent/" + r.OrgID + "/" + r.ID
	case IdentityAPIKey:
		return "id/apikey/" + r.OrgID + "/" + r.ID
	case IdentityRefresh:
		return "id/refresh/" + r.ID
	case IdentityOrg:
		return "id/org/" + r.OrgID
	case IdentityShare:
		return "id/share/" + r.OrgID + "/" + r.ID
	}
	return ""
}

// Append appends the canonical encoding of a valid record.
func (r *IdentityRecord) Append(b []byte) ([]byte, error) {
	if err := r.Validate(); err != nil {
		return b, err
	}
	b = append(b, identityRecordsTag...)
	b = append(b, byte(r.Kind))
	b = appendU64(b, r.Version)
	for _, s := range []string{r.OrgID, r.UserID, r.ID, r.Email, r.Role, r.Status, r.PasswordVerifier, r.Environment} {
		b = appendU32(b, uint32(len(s)))
		b = append(b, s...)
	}
	b = append(b, r.Flags)
	b = appendU64(b, uint64(r.ExpiresMs))
	b = appendU16(b, uint16(len(r.Scopes)))
	for _, s := range r.Scopes {
		b = appendU32(b, uint32(len(s)))
		b = append(b, s...)
	}
	b = appendU16(b, uint16(len(r.Verifiers)))
	for _, v := range r.Verifiers {
		b = append(b, v[:]...)
	}
	return b, nil
}

// Decode reads a record Append wrote, and only one: fields are bounded and
// the record must validate.
func (r *IdentityRecord) Decode(b []byte) error {
	*r = IdentityRecord{}
	if len(b) > MaxIdentityRecord {
		return fmt.Errorf("%w: identity record too long", ErrBadRequest)
	}
	d := decoder{b: b}
	var tag [4]byte
	d.fixed(tag[:], "record tag")
	if d.err == nil && string(tag[:]) != identityRecordsTag {
		d.fail("record tag", "unknown")
	}
	var kind [1]byte
	d.fixed(kind[:], "kind")
	r.Kind = IdentityKind(kind[0])
	r.Version = d.u64("version")
	r.OrgID = d.str(MaxIDLen, "org id")
	r.UserID = d.str(MaxIDLen, "user id")
	r.ID = d.str(MaxIDLen, "id")
	r.Email = d.str(MaxEmailLen, "email")
	r.Role = d.str(MaxRoleLen, "role")
	r.Status = d.str(MaxRoleLen, "status")
	r.PasswordVerifier = d.str(MaxVerifierLen, "password verifier")
	r.Environment = d.str(MaxIDLen, "environment")
	var flags [1]byte
	d.fixed(flags[:], "flags")
	r.Flags = flags[0]
	r.ExpiresMs = int64(d.u64("expires"))
	n := d.u16("scopes")
	if int(n) > MaxScopes {
		d.fail("scopes", "too many")
	}
	if n > 0 && d.err == nil {
		r.Scopes = make([]string, 0, n)
		for i := 0; i < int(n) && d.err == nil; i++ {
			r.Scopes = append(r.Scopes, d.str(MaxScopeLen, "scope"))
		}
	}
	n = d.u16("verifiers")
	if int(n) > MaxKeyVerifiers {
		d.fail("verifiers", "too many")
	}
	if n > 0 && d.err == nil {
		r.Verifiers = make([][32]byte, n)
		for i := range r.Verifiers {
			d.fixed(r.Verifiers[i][:], "verifier")
		}
	}
	if err := d.finish(); err != nil {
		return err
	}
	return r.Validate()
}
