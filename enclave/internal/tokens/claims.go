package tokens

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/policy"
)

// Claims are the verified claims of an access token: the enclave's view of
// the claim set wire.Claims defines (the members named by the wire.Claim*
// constants), typed and checked. Callers treat them as read-only: the same
// value (Scopes included) is handed to every caller that presents the same
// token.
type Claims struct {
	Issuer        string
	Subject       string // the user or agent id
	OrgID         string
	PrincipalType string      // policy.PrincipalUser or policy.PrincipalAgent
	Role          policy.Role // the org role; "" when the token carries none
	JTI           string
	Environment   string // the agent's environment tag; "" when none
	// Scopes are the agent's path patterns; HasScopes tells an absent claim
	// (no scope check) from an empty list (no path is in scope).
	Scopes    []string
	HasScopes bool
	// IntentsAPIEnabled is the agent's intents_api_enabled claim: signing
	// needs it.
	IntentsAPIEnabled bool
	IssuedAt          time.Time
	ExpiresAt         time.Time
	// IssuedAtMs is the issue time in Unix milliseconds: the iat_ms claim
	// when present (it must fall within the second iat names, or be the
	// next whole second, as the minter rounds up), else iat in
	// milliseconds. Revocation cut-offs are compared with it.
	IssuedAtMs int64
	// PlatformRole is the platform_role claim ("admin" or "super_admin"
	// for platform administrators; "" when absent).
	PlatformRole string
}

// maxScopes bounds the scopes claim; the token length bounds it anyway.
const maxScopes = 1024

// parseClaims reads the JSON payload of a token. Keys match exactly (no
// case folding) and a repeated key is refused, so the enclave never reads a
// claim differently from a strict parser. exp, iat, aud (a string or an
// array of strings), iss, sub, jti, org_id and principal_type are required. It also
// returns nbf (the zero time when absent).
func parseClaims(payload []byte, audience string) (Claims, time.Time, error) {
	fields, err := objectFields(payload)
	if err != nil {
		return Claims{}, time.Time{}, err
	}
	c, err := claimsOf(fields, audience)
	if err != nil {
		return Claims{}, time.Time{}, err
	}
	nbf, err := notBefore(fields)
	return c, nbf, err
}

func claimsOf(fields map[string]json.RawMessage, audience string) (Claims, error) {
	var err error
	var c Claims
	for _, f := range []struct {
		name string
		dst  *string
	}{
		{wire.ClaimIssuer, &c.Issuer}, {wire.ClaimSubject, &c.Subject}, {wire.ClaimID, &c.JTI},
		{wire.ClaimOrgID, &c.OrgID}, {wire.ClaimPrincipalType, &c.PrincipalType},
	} {
		if err := requiredString(fields, f.name, f.dst); err != nil {
			return Claims{}, err
		}
	}
	if c.PrincipalType != policy.PrincipalUser && c.PrincipalType != policy.PrincipalAgent {
		return Claims{}, invalid("principal_type is neither user nor agent")
	}
	if err := checkAudience(fields[wire.ClaimAudience], audience); err != nil {
		return Claims{}, err
	}
	if c.ExpiresAt, err = numericDate(fields[wire.ClaimExpiresAt], wire.ClaimExpiresAt); err != nil {
		return Claims{}, err
	}
	// iat is required: without it the lifetime cannot be bounded.
	if c.IssuedAt, err = numericDate(fields[wire.ClaimIssuedAt], wire.ClaimIssuedAt); err != nil {
		return Claims{}, err
	}
	if c.IssuedAtMs, err = issuedAtMs(fields[wire.ClaimIssuedAtMs], c.IssuedAt); err != nil {
		return Claims{}, err
	}
	if raw, ok := fields[wire.ClaimPlatformRole]; ok && !isNull(raw) {
		if json.Unmarshal(raw, &c.PlatformRole) != nil {
			return Claims{}, invalid("platform_role is not a string")
		}
	}
	if raw, ok := fields[wire.ClaimRole]; ok && !isNull(raw) {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return Claims{}, invalid("role is not a string")
		}
		if c.Role, err = policy.ParseRole(s); err != nil {
			return Claims{}, invalid("role is not owner, admin or member")
		}
	}
	if raw, ok := fields[wire.ClaimEnvironment]; ok && !isNull(raw) {
		if json.Unmarshal(raw, &c.Environment) != nil {
			return Claims{}, invalid("environment is not a string")
		}
	}
	if raw, ok := fields[wire.ClaimIntentsAPIEnabled]; ok && !isNull(raw) {
		if json.Unmarshal(raw, &c.IntentsAPIEnabled) != nil {
			return Claims{}, invalid("intents_api_enabled is not a boolean")
		}
	}
	if raw, ok := fields[wire.ClaimScopes]; ok && !isNull(raw) {
		if json.Unmarshal(raw, &c.Scopes) != nil || len(c.Scopes) > maxScopes {
			return Claims{}, invalid("scopes is not a bounded array of strings")
		}
		c.HasScopes = true
		if c.Scopes == nil {
			c.Scopes = []string{}
		}
	}
	return c, nil
}

// issuedAtMs reads the optional iat_ms claim: an integer of milliseconds
// from iat's whole second to the next one (inclusive). Absent or null: iat
// in milliseconds. So a token cannot claim to be newer than its iat (and
// slip past a cut-off) beyond the minter's rounding.
func issuedAtMs(raw json.RawMessage, iat time.Time) (int64, error) {
	lo := iat.Unix() * 1000
	if len(raw) == 0 || isNull(raw) {
		return iat.UnixMilli(), nil
	}
	ms, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || ms < lo || ms > lo+1000 {
		return 0, invalid("iat_ms is not an integer within iat's second")
	}
	return ms, nil
}

// notBefore reads the optional nbf claim; the zero time when absent.
func notBefore(fields map[string]json.RawMessage) (time.Time, error) {
	raw, ok := fields[wire.ClaimNotBefore]
	if !ok || isNull(raw) {
		return time.Time{}, nil
	}
	return numericDate(raw, wire.ClaimNotBefore)
}

func requiredString(fields map[string]json.RawMessage, name string, dst *string) error {
	raw, ok := fields[name]
	if !ok || json.Unmarshal(raw, dst) != nil || *dst == "" {
		return invalid(name + " is missing or not a non-empty string")
	}
	return nil
}

func checkAudience(raw json.RawMessage, want string) error {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		if one == want {
			return nil
		}
		return invalid("aud does not name this service")
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil {
		for _, a := range many {
			if a == want {
				return nil
			}
		}
	}
	return invalid("aud does not name this service")
}

// numericDate parses a JWT NumericDate (seconds since the epoch, integer or
// not) within the years 1970 to 9999.
func numericDate(raw json.RawMessage, name string) (time.Time, error) {
	var n json.Number
	if len(raw) == 0 || raw[0] == '"' || json.Unmarshal(raw, &n) != nil {
		return time.Time{}, invalid(name + " is missing or not a number")
	}
	const maxSeconds = 253402300799 // 9999-12-31T23:59:59Z
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		if i < 0 || i > maxSeconds {
			return time.Time{}, invalid(name + " is out of range")
		}
		return time.Unix(i, 0), nil
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsNaN(f) || f < 0 || f > maxSeconds {
		return time.Time{}, invalid(name + " is out of range")
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)), nil
}

func isNull(raw json.RawMessage) bool { return string(raw) == "null" }

func invalid(why string) error { return fmt.Errorf("%w: %s", ErrInvalidToken, why) }
