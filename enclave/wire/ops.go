package wire

// Op names the operation a frame asks for (or answers).
type Op uint16

// Operations. The first frame of every connection is OpAttest, unMAC'd; it
// sets up the session. Every later frame carries a MAC.
const (
	OpAttest     Op = 1
	OpCreateKEK  Op = 2
	OpSeal       Op = 3
	OpOpen       Op = 4
	OpSignJWT    Op = 5
	OpPublicKeys Op = 6
	OpHealth     Op = 7
	// OpSignAuditHead signed any head it was sent; retired, the enclave
	// refuses it (OpExtendAuditHead replaces it).
	OpSignAuditHead  Op = 8
	OpSealPolicySet  Op = 9
	OpSigningKey     Op = 10
	OpSignIntent     Op = 11
	OpSealGuardrails Op = 12
	OpMintToken      Op = 13
	OpSealIdentity   Op = 14
	OpRevokeToken    Op = 15
	OpSetCutoff      Op = 16
	// OpExtendAuditHead extends an organization's audit chain from the
	// last head the enclave signed and signs the new head.
	OpExtendAuditHead Op = 17
	// OpDestroySigningKey destroys retired versions of an agent's signing
	// key in the HSM.
	OpDestroySigningKey Op = 18
)

// Valid reports whether op is a known operation.
func (op Op) Valid() bool { return op >= OpAttest && op <= OpDestroySigningKey }

// String names the operation for logs.
func (op Op) String() string {
	switch op {
	case OpAttest:
		return "attest"
	case OpCreateKEK:
		return "create_kek"
	case OpSeal:
		return "seal"
	case OpOpen:
		return "open"
	case OpSignJWT:
		return "sign_jwt"
	case OpPublicKeys:
		return "public_keys"
	case OpHealth:
		return "health"
	case OpSignAuditHead:
		return "sign_audit_head"
	case OpSealPolicySet:
		return "seal_policy_set"
	case OpSigningKey:
		return "signing_key"
	case OpSignIntent:
		return "sign_intent"
	case OpSealGuardrails:
		return "seal_guardrails"
	case OpMintToken:
		return "mint_token"
	case OpSealIdentity:
		return "seal_identity"
	case OpRevokeToken:
		return "revoke_token"
	case OpSetCutoff:
		return "set_cutoff"
	case OpExtendAuditHead:
		return "extend_audit_head"
	case OpDestroySigningKey:
		return "destroy_signing_key"
	default:
		return "unknown"
	}
}
