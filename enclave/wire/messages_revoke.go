package wire

import "fmt"

// Revocation in the enclave.
//
// Sign-out and token cut-offs are kept by the enclave itself, in its
// anti-rollback floors (enclave/internal/floors), so that a token the
// proxy revoked opens nothing even when the proxy is compromised, and
// after an enclave restart:
//
//   - RevokeToken: Token, a valid access token, stops working at once (its
//     jti is kept revoked until it expires). Only the token itself is
//     enough authority for that.
//   - SetCutoff: every access token of one principal issued before now
//     (iat_ms, else iat) stops working, in one organization or, for a user,
//     in all of them. Token is the access token of the human doing it: an
//     owner or admin of OrgID (a member or an agent of the organization),
//     the user itself (its own cut-off), or a platform administrator (a
//     user's cut-off in every organization). CutoffDelete makes the
//     cut-off permanent (a deleted principal); a cut-off never moves back.
//
// Every refusal is ErrForbidden; an HSM failure is ErrUnavailable.

// RevokeTokenRequest revokes the access token Token (its jti, until exp).
type RevokeTokenRequest struct {
	Token string
}

// Append implements Message.
func (m *RevokeTokenRequest) Append(b []byte) ([]byte, error) {
	return appendString(b, m.Token, MaxTokenLen, "token")
}

// Decode implements Message.
func (m *RevokeTokenRequest) Decode(b []byte) error {
	d := decoder{b: b}
	m.Token = d.str(MaxTokenLen, "token")
	return d.finish()
}

// RevokeTokenResponse answers RevokeToken: ExpiresAtMs is the token's exp
// in Unix milliseconds, until which its jti stays revoked.
type RevokeTokenResponse struct {
	ExpiresAtMs int64
}

// Append implements Message.
func (m *RevokeTokenResponse) Append(b []byte) ([]byte, error) {
	return appendU64(b, uint64(m.ExpiresAtMs)), nil
}

// Decode implements Message.
func (m *RevokeTokenResponse) Decode(b []byte) error {
	d := decoder{b: b}
	m.ExpiresAtMs = int64(d.u64("expires at"))
	return d.finish()
}

// SetCutoff flags.
const (
	// CutoffAllOrgs applies the cut-off in every organization (a user
	// only; OrgID must be empty).
	CutoffAllOrgs uint32 = 1 << iota
	// CutoffDelete makes it permanent: the principal was deleted.
	CutoffDelete
	// CutoffAgent says that PrincipalID is an agent (else a user).
	CutoffAgent
	// CutoffOrg cuts off every token of OrgID for good: the organization
	// was deleted (with its agents). PrincipalID must be OrgCutoffPrincipal
	// and CutoffDelete is implied.
	CutoffOrg

	cutoffFlagsKnown = CutoffAllOrgs | CutoffDelete | CutoffAgent | CutoffOrg
)

// OrgCutoffPrincipal stands for every principal of an organization in a
// CutoffOrg request (no user or agent id is "-").
const OrgCutoffPrincipal = "-"

// SetCutoffRequest cuts off the access tokens of PrincipalID in OrgID (see
// the flags), with the authority of Token.
type SetCutoffRequest struct {
	OrgID       string
	PrincipalID string
	Flags       uint32
	Token       string
}

// Append implements Message.
func (m *SetCutoffRequest) Append(b []byte) ([]byte, error) {
	if m.Flags&^cutoffFlagsKnown != 0 {
		return b, fmt.Errorf("%w: unknown cut-off flags", ErrBadRequest)
	}
	b, err := appendString(b, m.OrgID, MaxIDLen, "org id")
	if err != nil {
		return b, err
	}
	if b, err = appendString(b, m.PrincipalID, MaxIDLen, "principal id"); err != nil {
		return b, err
	}
	b = appendU32(b, m.Flags)
	return appendString(b, m.Token, MaxTokenLen, "token")
}

// Decode implements Message.
func (m *SetCutoffRequest) Decode(b []byte) error {
	d := decoder{b: b}
	m.OrgID = d.str(MaxIDLen, "org id")
	m.PrincipalID = d.str(MaxIDLen, "principal id")
	m.Flags = d.u32("flags")
	m.Token = d.str(MaxTokenLen, "token")
	if d.err == nil && m.Flags&^cutoffFlagsKnown != 0 {
		d.fail("flags", "unknown")
	}
	return d.finish()
}

// SetCutoffResponse answers SetCutoff: NotBeforeMs is the cut-off now in
// force (Unix milliseconds; math.MaxInt64 for a deleted principal), which
// may be later than the one asked for.
type SetCutoffResponse struct {
	NotBeforeMs int64
}

// Append implements Message.
func (m *SetCutoffResponse) Append(b []byte) ([]byte, error) {
	return appendU64(b, uint64(m.NotBeforeMs)), nil
}

// Decode implements Message.
func (m *SetCutoffResponse) Decode(b []byte) error {
	d := decoder{b: b}
	m.NotBeforeMs = int64(d.u64("not before"))
	return d.finish()
}
