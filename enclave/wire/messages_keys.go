package wire

// DestroySigningKeyRequest asks the enclave to destroy retired versions of
// an agent's signing key for one chain in the HSM: every version below
// Below, which must exist (a rotation destroys what its new version
// replaced), or, when Below is 0, every version (the key is deleted).
// Token is the caller's access token: a user who is an owner or admin of
// OrgID.
type DestroySigningKeyRequest struct {
	Token   string
	OrgID   string
	AgentID string
	Chain   string
	Below   uint32
}

// Append implements Message.
func (m *DestroySigningKeyRequest) Append(b []byte) ([]byte, error) {
	b, err := appendAgentKey(b, m.Token, m.OrgID, m.AgentID, m.Chain)
	if err != nil {
		return b, err
	}
	return appendU32(b, m.Below), nil
}

// Decode implements Message.
func (m *DestroySigningKeyRequest) Decode(b []byte) error {
	d := decoder{b: b}
	m.Token, m.OrgID, m.AgentID, m.Chain = d.agentKey()
	m.Below = d.u32("below")
	return d.finish()
}

// appendAgentKey appends what names an agent's signing key for one chain,
// with the caller's token: the common head of the key messages.
func appendAgentKey(b []byte, token, org, agent, chain string) ([]byte, error) {
	b, err := appendString(b, token, MaxTokenLen, "token")
	if err != nil {
		return b, err
	}
	if b, err = appendString(b, org, MaxIDLen, "org id"); err != nil {
		return b, err
	}
	if b, err = appendString(b, agent, MaxIDLen, "agent id"); err != nil {
		return b, err
	}
	return appendString(b, chain, MaxChainLen, "chain")
}

// agentKey reads what appendAgentKey wrote.
func (d *decoder) agentKey() (token, org, agent, chain string) {
	return d.str(MaxTokenLen, "token"), d.str(MaxIDLen, "org id"), d.str(MaxIDLen, "agent id"), d.str(MaxChainLen, "chain")
}

// DestroySigningKeyResponse counts the versions destroyed.
type DestroySigningKeyResponse struct {
	Destroyed uint32
}

// Append implements Message.
func (m *DestroySigningKeyResponse) Append(b []byte) ([]byte, error) {
	return appendU32(b, m.Destroyed), nil
}

// Decode implements Message.
func (m *DestroySigningKeyResponse) Decode(b []byte) error {
	d := decoder{b: b}
	m.Destroyed = d.u32("destroyed")
	return d.finish()
}
