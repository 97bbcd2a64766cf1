package wire

// Names of the claims of an OCV access token. They are the JSON member names
// of Claims, spelled once here so that the minter (proxy), the proxy's
// verifier and the enclave's strict parser read the same claim set.
const (
	ClaimIssuer        = "iss"
	ClaimSubject       = "sub" // the user or agent id
	ClaimAudience      = "aud" // TokenAudience
	ClaimIssuedAt      = "iat" // NumericDate, seconds
	ClaimExpiresAt     = "exp" // NumericDate, seconds
	ClaimID            = "jti"
	ClaimOrgID         = "org_id"
	ClaimPrincipalType = "principal_type" // "user" or "agent"
	ClaimRole          = "role"           // the org role: owner, admin or member
	ClaimPlatformRole  = "platform_role"  // admin or super_admin; users only
	// Agent tokens only.
	ClaimScopes                  = "scopes"
	ClaimEnvironment             = "environment"
	ClaimIntentsAPIEnabled       = "intents_api_enabled"
	ClaimExecutionIntentsEnabled = "execution_intents_enabled"
	ClaimIntentsRequireTEE       = "intents_require_tee"
	ClaimExecutionRequireTEE     = "execution_require_tee"
	// ClaimIssuedAtMs is the issue time in Unix milliseconds.
	ClaimIssuedAtMs = "iat_ms"
	// ClaimNotBefore is the registered nbf claim. OCV never mints it; the
	// enclave's verifier honours it when a token carries it.
	ClaimNotBefore = "nbf"
)

// TokenAudience is the aud of every OCV access token.
const TokenAudience = "ocv"

// Claims is the claim set of an OCV access token, and the one definition of
// it: the proxy mints tokens by encoding it (encoding/json, members in field
// order, so one set of claims always gives the same bytes) and reads them
// back with it, and the enclave's strict parser reads the members named by
// the Claim* constants above. The JSON tags and those constants are the same
// names; a test holds them together.
//
// Pointers tell an absent claim from a zero one where the difference
// matters: a nil Scopes is no scope check, a non-nil empty one is no path in
// scope.
type Claims struct {
	Issuer    string `json:"iss"`
	Subject   string `json:"sub"`
	Audience  string `json:"aud"`
	IssuedAt  int64  `json:"iat"`
	ExpiresAt int64  `json:"exp"`
	ID        string `json:"jti"`
	OrgID     string `json:"org_id"`
	Type      string `json:"principal_type"`
	Role      string `json:"role,omitempty"`
	// PlatformRole is "admin" or "super_admin" for platform administrators.
	PlatformRole string `json:"platform_role,omitempty"`

	// Agent tokens only.
	Scopes                  *[]string `json:"scopes,omitempty"`
	Environment             string    `json:"environment,omitempty"`
	IntentsAPIEnabled       *bool     `json:"intents_api_enabled,omitempty"`
	ExecutionIntentsEnabled *bool     `json:"execution_intents_enabled,omitempty"`
	IntentsRequireTEE       bool      `json:"intents_require_tee,omitempty"`
	ExecutionRequireTEE     bool      `json:"execution_require_tee,omitempty"`
	// IssuedAtMs is the issue time in Unix milliseconds, compared with the
	// agent's or user's revocation cut-off (iat has only second precision).
	IssuedAtMs int64 `json:"iat_ms,omitempty"`
}
