package wire

// Credentials the enclave checks itself (OpMintToken) and the records they
// must match (identity.go).

// Credential kinds of a MintTokenRequest.
const (
	// CredPassword: Secret is the password, checked (argon2id) against the
	// user record's verifier; a member record names the organization.
	CredPassword uint8 = 1
	// CredAPIKey: Secret is a personal API key, checked (SHA-256) against
	// the API key record; user and member records as for a password.
	CredAPIKey uint8 = 2
	// CredAgentKey: Secret is an agent's API key, checked against the
	// verifiers of the agent record.
	CredAgentKey uint8 = 3
	// CredRefresh: Secret is a refresh token, checked against the refresh
	// record; user and member records as for a password. NextRefresh must
	// be the rotated record (same family, version + 1).
	CredRefresh uint8 = 4
	// CredShare: Secret is a share's capability, checked against the share
	// record; with the creator's user and member records, or its agent
	// record.
	CredShare uint8 = 5
)

// Bounds of the identity messages.
const (
	MaxSecretLen       = 1024 // a password (the proxy's own bound) or key
	MaxIdentityRecords = 4
)

// SealedIdentity is a record's canonical bytes and the MAC OpSealIdentity
// gave it.
type SealedIdentity struct {
	Record []byte
	MAC    []byte
}

func appendSealed(b []byte, s []SealedIdentity) ([]byte, error) {
	if len(s) > MaxIdentityRecords {
		return b, errTooMany("records")
	}
	b = append(b, byte(len(s)))
	var err error
	for _, r := range s {
		if b, err = appendBytes(b, r.Record, MaxIdentityRecord, "record"); err != nil {
			return b, err
		}
		if b, err = appendBytes(b, r.MAC, IdentityMACLen, "record mac"); err != nil {
			return b, err
		}
	}
	return b, nil
}

func (d *decoder) sealed() []SealedIdentity {
	var n [1]byte
	d.fixed(n[:], "records")
	if int(n[0]) > MaxIdentityRecords {
		d.fail("records", "too many")
	}
	if d.err != nil || n[0] == 0 {
		return nil
	}
	out := make([]SealedIdentity, n[0])
	for i := range out {
		out[i].Record = d.bytes(MaxIdentityRecord, "record")
		out[i].MAC = d.bytes(IdentityMACLen, "record mac")
	}
	return out
}

func errTooMany(field string) error { return &tooMany{field} }

type tooMany struct{ field string }

func (e *tooMany) Error() string { return "bad request: too many " + e.field }
func (e *tooMany) Unwrap() error { return ErrBadRequest }

// MintTokenRequest asks the enclave for an access token for a credential.
// Records are the sealed records the credential must match (any order, at
// most one of each kind); NextRefresh, when set, is a new refresh record to
// seal with the token (a sign-in's first, or a refresh's rotation).
//
// NotBeforeMs (Unix ms, 0: none) asks for an issue time no earlier than a
// cut-off the proxy keeps itself (its own revocation cut-offs are set a
// second ahead); the enclave refuses one more than TokenClockSkew ahead of
// its clock, which verifiers tolerate anyway.
type MintTokenRequest struct {
	Credential  uint8
	Secret      string
	Records     []SealedIdentity
	NextRefresh []byte
	NotBeforeMs int64
}

// Append implements Message.
func (m *MintTokenRequest) Append(b []byte) ([]byte, error) {
	b = append(b, m.Credential)
	b, err := appendString(b, m.Secret, MaxSecretLen, "secret")
	if err != nil {
		return b, err
	}
	if b, err = appendSealed(b, m.Records); err != nil {
		return b, err
	}
	if b, err = appendBytes(b, m.NextRefresh, MaxIdentityRecord, "next refresh"); err != nil {
		return b, err
	}
	return appendU64(b, uint64(m.NotBeforeMs)), nil
}

// Decode implements Message.
func (m *MintTokenRequest) Decode(b []byte) error {
	d := decoder{b: b}
	var c [1]byte
	d.fixed(c[:], "credential")
	m.Credential = c[0]
	m.Secret = d.str(MaxSecretLen, "secret")
	m.Records = d.sealed()
	m.NextRefresh = d.bytes(MaxIdentityRecord, "next refresh")
	m.NotBeforeMs = int64(d.u64("not before"))
	return d.finish()
}

// MintTokenResponse is the token, its kid and expiry (Unix seconds), its
// issue time (Unix ms) and, when the request carried NextRefresh, that
// record's MAC.
type MintTokenResponse struct {
	Token      string
	KID        string
	ExpiresAt  int64
	IssuedAtMs int64
	RefreshMAC []byte
}

// Append implements Message.
func (m *MintTokenResponse) Append(b []byte) ([]byte, error) {
	b, err := appendString(b, m.Token, MaxTokenLen, "token")
	if err != nil {
		return b, err
	}
	if b, err = appendString(b, m.KID, MaxShortLen, "kid"); err != nil {
		return b, err
	}
	b = appendU64(b, uint64(m.ExpiresAt))
	b = appendU64(b, uint64(m.IssuedAtMs))
	return appendBytes(b, m.RefreshMAC, IdentityMACLen, "refresh mac")
}

// Decode implements Message.
func (m *MintTokenResponse) Decode(b []byte) error {
	d := decoder{b: b}
	m.Token = d.str(MaxTokenLen, "token")
	m.KID = d.str(MaxShortLen, "kid")
	m.ExpiresAt = int64(d.u64("expires at"))
	m.IssuedAtMs = int64(d.u64("issued at ms"))
	m.RefreshMAC = d.bytes(IdentityMACLen, "refresh mac")
	return d.finish()
}

// SealIdentityRequest asks the enclave to seal new identity records. The
// enclave checks the authority for each itself:
//
//   - signup: no Token; Records are exactly an org record, a user record
//     and an owner membership, all version 1, none with a floor yet;
//   - a membership, an agent or a new user (an invitation): Token is an
//     access token of an owner or admin of the record's organization;
//   - an API key record: Token is the key owner's token in that
//     organization (or an owner's or admin's);
//   - a user record's change: OldPassword matches the verifier of the
//     current user record, given in Current (an access token is not
//     enough); a first password: the user's own token and Current;
//   - a user's platform role alone: Current only (platform roles grant
//     nothing in the enclave).
//
// Every record's version must be its floor's plus one (1 when none).
type SealIdentityRequest struct {
	Token       string
	OldPassword string
	Current     []SealedIdentity
	Records     [][]byte
}

// Append implements Message.
func (m *SealIdentityRequest) Append(b []byte) ([]byte, error) {
	b, err := appendString(b, m.Token, MaxTokenLen, "token")
	if err != nil {
		return b, err
	}
	if b, err = appendString(b, m.OldPassword, MaxSecretLen, "old password"); err != nil {
		return b, err
	}
	if b, err = appendSealed(b, m.Current); err != nil {
		return b, err
	}
	if len(m.Records) > MaxIdentityRecords {
		return b, errTooMany("records")
	}
	b = append(b, byte(len(m.Records)))
	for _, r := range m.Records {
		if b, err = appendBytes(b, r, MaxIdentityRecord, "record"); err != nil {
			return b, err
		}
	}
	return b, nil
}

// Decode implements Message.
func (m *SealIdentityRequest) Decode(b []byte) error {
	d := decoder{b: b}
	m.Token = d.str(MaxTokenLen, "token")
	m.OldPassword = d.str(MaxSecretLen, "old password")
	m.Current = d.sealed()
	var n [1]byte
	d.fixed(n[:], "records")
	if int(n[0]) > MaxIdentityRecords {
		d.fail("records", "too many")
	}
	m.Records = nil
	if d.err == nil && n[0] > 0 {
		m.Records = make([][]byte, n[0])
		for i := range m.Records {
			m.Records[i] = d.bytes(MaxIdentityRecord, "record")
		}
	}
	return d.finish()
}

// SealIdentityResponse carries one MAC per sealed record, in order.
type SealIdentityResponse struct {
	MACs [][]byte
}

// Append implements Message.
func (m *SealIdentityResponse) Append(b []byte) ([]byte, error) {
	if len(m.MACs) > MaxIdentityRecords {
		return b, errTooMany("macs")
	}
	b = append(b, byte(len(m.MACs)))
	var err error
	for _, mac := range m.MACs {
		if b, err = appendBytes(b, mac, IdentityMACLen, "mac"); err != nil {
			return b, err
		}
	}
	return b, nil
}

// Decode implements Message.
func (m *SealIdentityResponse) Decode(b []byte) error {
	d := decoder{b: b}
	var n [1]byte
	d.fixed(n[:], "macs")
	if int(n[0]) > MaxIdentityRecords {
		d.fail("macs", "too many")
	}
	m.MACs = nil
	if d.err == nil && n[0] > 0 {
		m.MACs = make([][]byte, n[0])
		for i := range m.MACs {
			m.MACs[i] = d.bytes(IdentityMACLen, "mac")
		}
	}
	return d.finish()
}
