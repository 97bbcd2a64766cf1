package wire

// Caller authorisation.
//
// Open and Seal carry the authorisation of the caller the proxy serves, and
// the enclave checks it itself before it touches a key, so a proxy that
// forges or drops policies still gets no plaintext:
//
//   - Token is the caller's access token, a compact ES256 JWT minted by this
//     enclave (SignJWT). It must verify under one of the enclave's own
//     token-signing keys, be unexpired, carry aud "ocv" and an org_id equal
//     to the request's OrgID.
//   - A user whose org role is owner or admin needs nothing more. Members
//     and agents need PolicySet, the vault's current policy set exactly as
//     policy.EncodeSet made it, and PolicyMAC, the MAC that SealPolicySet
//     returned for it. The set must be for the request's vault and not older
//     than any version of it the enclave has seen; then policy.Evaluate
//     decides (Open is a read, Seal a write), and an agent token that
//     carries scopes must also have the path in scope.
//   - ClientIP is the caller's address as the proxy saw it ("" when
//     unknown), for policies with IP conditions.
//
// Every refusal is ErrForbidden, whatever the reason.

// appendCaller appends the caller authorisation fields.
func appendCaller(b []byte, token string, set, mac []byte, clientIP string) ([]byte, error) {
	b, err := appendString(b, token, MaxTokenLen, "token")
	if err != nil {
		return b, err
	}
	if b, err = appendBytes(b, set, MaxPolicySetLen, "policy set"); err != nil {
		return b, err
	}
	if b, err = appendBytes(b, mac, PolicyMACLen, "policy mac"); err != nil {
		return b, err
	}
	return appendString(b, clientIP, MaxClientIPLen, "client ip")
}

// caller reads the fields appendCaller wrote.
func (d *decoder) caller() (token string, set, mac []byte, clientIP string) {
	token = d.str(MaxTokenLen, "token")
	set = d.bytes(MaxPolicySetLen, "policy set")
	mac = d.bytes(PolicyMACLen, "policy mac")
	clientIP = d.str(MaxClientIPLen, "client ip")
	return token, set, mac, clientIP
}

// SealPolicySetRequest asks the enclave to MAC a vault's new policy set.
// Set is the policy.EncodeSet encoding of the whole set at Version, for
// VaultID (both are inside Set too and must match). ChangerToken is the
// access token of the human making the change: a user of OrgID whose role
// is owner or admin. Version must be newer than any version of this vault
// the enclave has sealed or seen (else ErrConflict). An empty set (every
// policy deleted) is sealed like any other.
type SealPolicySetRequest struct {
	OrgID        string
	VaultID      string
	Version      uint64
	Set          []byte
	ChangerToken string
}

// Append implements Message.
func (m *SealPolicySetRequest) Append(b []byte) ([]byte, error) {
	b, err := appendString(b, m.OrgID, MaxIDLen, "org id")
	if err != nil {
		return b, err
	}
	if b, err = appendString(b, m.VaultID, MaxIDLen, "vault id"); err != nil {
		return b, err
	}
	b = appendU64(b, m.Version)
	if b, err = appendBytes(b, m.Set, MaxPolicySetLen, "policy set"); err != nil {
		return b, err
	}
	return appendString(b, m.ChangerToken, MaxTokenLen, "changer token")
}

// Decode implements Message.
func (m *SealPolicySetRequest) Decode(b []byte) error {
	d := decoder{b: b}
	m.OrgID = d.str(MaxIDLen, "org id")
	m.VaultID = d.str(MaxIDLen, "vault id")
	m.Version = d.u64("version")
	m.Set = d.bytes(MaxPolicySetLen, "policy set")
	m.ChangerToken = d.str(MaxTokenLen, "changer token")
	return d.finish()
}

// SealPolicySetResponse carries the policy set's MAC (PolicyMACLen bytes),
// which the proxy stores with the set and sends with every Open and Seal.
type SealPolicySetResponse struct {
	MAC []byte
}

// Append implements Message.
func (m *SealPolicySetResponse) Append(b []byte) ([]byte, error) {
	return appendBytes(b, m.MAC, PolicyMACLen, "policy mac")
}

// Decode implements Message.
func (m *SealPolicySetResponse) Decode(b []byte) error {
	d := decoder{b: b}
	m.MAC = d.bytes(PolicyMACLen, "policy mac")
	return d.finish()
}
