package problem

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// Problem types: short snake_case slugs, documented in api/openapi.yaml.
const (
	TypeInvalidRequest     = "invalid_request"
	TypeInvalidPath        = "invalid_path"
	TypeInvalidURL         = "invalid_url"
	TypeInvalidToken       = "invalid_token"
	TypeInvalidCredentials = "invalid_credentials"
	TypeAccountLocked      = "account_locked"
	TypeForbidden          = "forbidden"
	TypePolicyDenied       = "policy_denied"
	TypeIPDenied           = "ip_denied"
	TypeHumanOnly          = "human_only"
	TypeNotFound           = "not_found"
	TypeMethodNotAllowed   = "method_not_allowed"
	TypeConflict           = "conflict"
	TypeGone               = "gone"
	TypeTooLarge           = "payload_too_large"
	TypeUnsupportedMedia   = "unsupported_media_type"
	TypeEnclaveUnavailable = "enclave_unavailable"
	TypeIntegrity          = "integrity_error"
	// TypeKEKDestroyed (410): the vault's key-encryption key version that
	// sealed the value is gone from the HSM (destroyed or lost); the value
	// is crypto-shredded and can never be read again.
	TypeKEKDestroyed       = "kek_destroyed"
	TypeInternal           = "internal_error"
	TypeAuditUnavailable   = "audit_unavailable"
	TypeStorageUnavailable = "storage_unavailable"
	// TypePrivateKeyBlocked: an agent with the intents API enabled asked
	// for the value of a private_key or ssh_key secret (or shared one).
	TypePrivateKeyBlocked = "private_key_blocked"
	// Metering and limits (the middlewares of proxy/ratelimit,
	// proxy/metering and proxy/idempotency answer them with these slugs).
	TypePaymentRequired       = "payment_required"
	TypeRateLimited           = "rate_limited"
	TypeResourceLimitExceeded = "resource_limit_exceeded"
	TypeIdempotencyInProgress = "idempotency_in_progress"
	TypeIdempotencyMismatch   = "idempotency_mismatch"
	// TypeIdempotencyUnsupported: Idempotency-Key on a state change whose
	// answer carries a credential, which is never stored for replay.
	TypeIdempotencyUnsupported = "idempotency_unsupported"

	// The Intents API. A guardrail refusal answers "guardrail_" + the name
	// of the guardrail field that refused (Guardrail builds it).
	TypeIntentsDisabled    = "intents_disabled"
	TypeSimulationReverted = "simulation_reverted"
	TypeChainUnavailable   = "chain_unavailable"
	TypeBroadcastRejected  = "broadcast_rejected"
	TypeUnsupportedChain   = "unsupported_chain"
	guardrailPrefix        = "guardrail_"
)

// Guardrail is the 403 problem of a guardrail refusal, typed
// "guardrail_<name>".
func Guardrail(name, detail string) *Problem {
	return New(http.StatusForbidden, guardrailPrefix+name, detail)
}

// PrivateKeyBlocked is the 403 answer to an agent with the intents API
// enabled asking for a private_key or ssh_key value, or to share one (the
// enclave refuses the same by the type bound into the sealed value).
func PrivateKeyBlocked() *Problem {
	return New(http.StatusForbidden, TypePrivateKeyBlocked,
		"an agent with the intents API enabled signs through OCV and cannot read or share private_key or ssh_key secrets "+
			"(nor a value sealed before secret types were bound into it, until it is written again)")
}

// Problem is an error with an HTTP answer. Detail is shown to the client, so
// it never holds a secret value, key, token or password.
type Problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
	// RetryAfter, when positive, is sent as the Retry-After header
	// (seconds).
	RetryAfter int `json:"-"`
}

func (p *Problem) Error() string { return p.Type + ": " + p.Detail }

// New returns a problem with the standard title of status.
func New(status int, typ, detail string) *Problem {
	return &Problem{Type: typ, Title: http.StatusText(status), Status: status, Detail: detail}
}

// BadRequest is a 400 problem.
func BadRequest(typ, detail string) *Problem { return New(http.StatusBadRequest, typ, detail) }

// NotFound is the 404 problem. Another organization's resource answers
// exactly like a missing one.
func NotFound(what string) *Problem { return New(http.StatusNotFound, TypeNotFound, what+" not found") }

// Unauthorized is a 401 problem.
func Unauthorized(typ, detail string) *Problem { return New(http.StatusUnauthorized, typ, detail) }

// Write sends p as application/problem+json.
func Write(w http.ResponseWriter, p *Problem) {
	body, _ := json.Marshal(p)
	h := w.Header()
	h.Set("Content-Type", "application/problem+json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-store")
	if p.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(p.RetryAfter))
	}
	w.WriteHeader(p.Status)
	_, _ = w.Write(body)
}
