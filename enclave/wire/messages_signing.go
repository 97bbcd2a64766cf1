package wire

// Limits of the signing messages.
const (
	MaxChainLen      = 32        // chain names ("ethereum", "base", …)
	MaxPrivateKeyLen = 32        // an imported secp256k1 scalar or Ed25519 seed
	MaxPublicKeyLen  = 65        // an uncompressed secp256k1 point
	MaxIntentLen     = 256 << 10 // a structured sign request (JSON or message bytes)
	MaxSignContext   = 256 << 10 // guardrails, rules and counters (JSON)
	MaxSignedTxLen   = 512 << 10 // a signed raw transaction
	MaxSignatureLen  = 128
)

// SigningKeyRequest asks for a new version of an agent's signing key for
// one chain: generated in the HSM, or, when Private is set, imported (only
// a human of the organization may import). Token is the caller's access
// token: a human of the org, or the agent itself.
type SigningKeyRequest struct {
	Token   string
	OrgID   string
	AgentID string
	Chain   string
	Version uint32
	Private []byte
}

// Append implements Message.
func (m *SigningKeyRequest) Append(b []byte) ([]byte, error) {
	b, err := appendAgentKey(b, m.Token, m.OrgID, m.AgentID, m.Chain)
	if err != nil {
		return b, err
	}
	b = appendU32(b, m.Version)
	return appendBytes(b, m.Private, MaxPrivateKeyLen, "private key")
}

// Decode implements Message.
func (m *SigningKeyRequest) Decode(b []byte) error {
	d := decoder{b: b}
	m.Token, m.OrgID, m.AgentID, m.Chain = d.agentKey()
	m.Version = d.u32("version")
	m.Private = d.bytes(MaxPrivateKeyLen, "private key")
	return d.finish()
}

// SigningKeyResponse carries the new key's curve ("secp256k1" or
// "ed25519") and public key (65-byte uncompressed point, or 32 bytes).
type SigningKeyResponse struct {
	Curve     string
	PublicKey []byte
}

// Append implements Message.
func (m *SigningKeyResponse) Append(b []byte) ([]byte, error) {
	b, err := appendString(b, m.Curve, MaxShortLen, "curve")
	if err != nil {
		return b, err
	}
	return appendBytes(b, m.PublicKey, MaxPublicKeyLen, "public key")
}

// Decode implements Message.
func (m *SigningKeyResponse) Decode(b []byte) error {
	d := decoder{b: b}
	m.Curve = d.str(MaxShortLen, "curve")
	m.PublicKey = d.bytes(MaxPublicKeyLen, "public key")
	return d.finish()
}

// Sign intent kinds.
const (
	IntentPersonalSign = "personal_sign"
	IntentTypedData    = "typed_data"
	IntentTransaction  = "transaction"
	IntentDigest       = "eip712_digest"
)

// SignIntentRequest asks the enclave to sign a structured request with an
// agent's key: it builds the digest itself from Payload (the message bytes,
// the typed-data JSON, the transaction request JSON, or — for
// IntentDigest only — the 32-byte hash), evaluates the guardrails in
// Context (JSON: guardrails, tx rules, counters, chain facts) and signs only
// when they allow it. Token must be the agent's own access token with
// intents enabled.
type SignIntentRequest struct {
	Token      string
	OrgID      string
	AgentID    string
	Chain      string
	KeyVersion uint32
	Kind       string
	Payload    []byte
	Context    []byte
	// GuardrailSet is the agent's sealed guardrail set (GuardrailSet JSON)
	// and GuardrailMAC the MAC SealGuardrails gave it.
	GuardrailSet []byte
	GuardrailMAC []byte
}

// Append implements Message.
func (m *SignIntentRequest) Append(b []byte) ([]byte, error) {
	b, err := appendString(b, m.Token, MaxTokenLen, "token")
	if err != nil {
		return b, err
	}
	if b, err = appendString(b, m.OrgID, MaxIDLen, "org id"); err != nil {
		return b, err
	}
	if b, err = appendString(b, m.AgentID, MaxIDLen, "agent id"); err != nil {
		return b, err
	}
	if b, err = appendString(b, m.Chain, MaxChainLen, "chain"); err != nil {
		return b, err
	}
	b = appendU32(b, m.KeyVersion)
	if b, err = appendString(b, m.Kind, MaxShortLen, "kind"); err != nil {
		return b, err
	}
	if b, err = appendBytes(b, m.Payload, MaxIntentLen, "payload"); err != nil {
		return b, err
	}
	if b, err = appendBytes(b, m.Context, MaxSignContext, "context"); err != nil {
		return b, err
	}
	if b, err = appendBytes(b, m.GuardrailSet, MaxSignContext, "guardrail set"); err != nil {
		return b, err
	}
	return appendBytes(b, m.GuardrailMAC, PolicyMACLen, "guardrail mac")
}

// Decode implements Message.
func (m *SignIntentRequest) Decode(b []byte) error {
	d := decoder{b: b}
	m.Token = d.str(MaxTokenLen, "token")
	m.OrgID = d.str(MaxIDLen, "org id")
	m.AgentID = d.str(MaxIDLen, "agent id")
	m.Chain = d.str(MaxChainLen, "chain")
	m.KeyVersion = d.u32("key version")
	m.Kind = d.str(MaxShortLen, "kind")
	m.Payload = d.bytes(MaxIntentLen, "payload")
	m.Context = d.bytes(MaxSignContext, "context")
	m.GuardrailSet = d.bytes(MaxSignContext, "guardrail set")
	m.GuardrailMAC = d.bytes(PolicyMACLen, "guardrail mac")
	return d.finish()
}

// SealGuardrailsRequest asks the enclave to MAC an agent's new guardrail
// set (GuardrailSet JSON naming the agent and Version) for the human in
// ChangerToken, a user of OrgID. The answer is a SealPolicySetResponse
// carrying the MAC.
type SealGuardrailsRequest struct {
	OrgID        string
	AgentID      string
	Version      uint64
	Set          []byte
	ChangerToken string
}

// Append implements Message.
func (m *SealGuardrailsRequest) Append(b []byte) ([]byte, error) {
	b, err := appendString(b, m.OrgID, MaxIDLen, "org id")
	if err != nil {
		return b, err
	}
	if b, err = appendString(b, m.AgentID, MaxIDLen, "agent id"); err != nil {
		return b, err
	}
	b = appendU64(b, m.Version)
	if b, err = appendBytes(b, m.Set, MaxSignContext, "guardrail set"); err != nil {
		return b, err
	}
	return appendString(b, m.ChangerToken, MaxTokenLen, "changer token")
}

// Decode implements Message.
func (m *SealGuardrailsRequest) Decode(b []byte) error {
	d := decoder{b: b}
	m.OrgID = d.str(MaxIDLen, "org id")
	m.AgentID = d.str(MaxIDLen, "agent id")
	m.Version = d.u64("version")
	m.Set = d.bytes(MaxSignContext, "guardrail set")
	m.ChangerToken = d.str(MaxTokenLen, "changer token")
	return d.finish()
}

// SignIntentResponse is either a refusal by a guardrail (Denied names the
// guardrail field, Detail says why; nothing was signed) or a signature:
// Signature is r‖s‖v (65 bytes, v 0 or 1), Digest what was signed, and for
// transactions SignedTx the raw signed transaction and TxHash its hash.
type SignIntentResponse struct {
	Denied    string
	Detail    string
	Signature []byte
	Digest    []byte
	SignedTx  []byte
	TxHash    []byte
}

// Append implements Message.
func (m *SignIntentResponse) Append(b []byte) ([]byte, error) {
	b, err := appendString(b, m.Denied, MaxShortLen, "denied")
	if err != nil {
		return b, err
	}
	if b, err = appendString(b, m.Detail, MaxClaimsLen, "detail"); err != nil {
		return b, err
	}
	if b, err = appendBytes(b, m.Signature, MaxSignatureLen, "signature"); err != nil {
		return b, err
	}
	if b, err = appendBytes(b, m.Digest, MaxShortLen, "digest"); err != nil {
		return b, err
	}
	if b, err = appendBytes(b, m.SignedTx, MaxSignedTxLen, "signed tx"); err != nil {
		return b, err
	}
	return appendBytes(b, m.TxHash, MaxShortLen, "tx hash")
}

// Decode implements Message.
func (m *SignIntentResponse) Decode(b []byte) error {
	d := decoder{b: b}
	m.Denied = d.str(MaxShortLen, "denied")
	m.Detail = d.str(MaxClaimsLen, "detail")
	m.Signature = d.bytes(MaxSignatureLen, "signature")
	m.Digest = d.bytes(MaxShortLen, "digest")
	m.SignedTx = d.bytes(MaxSignedTxLen, "signed tx")
	m.TxHash = d.bytes(MaxShortLen, "tx hash")
	return d.finish()
}
