package wire

import "errors"

// Code is the status of a response frame. Error responses carry only the
// code; the receiving side turns it back into the matching sentinel, whose
// fixed text is the only message that ever describes the failure.
type Code uint16

// Codes that cross the channel.
const (
	OK              Code = 0
	BadRequest      Code = 1
	NotFound        Code = 2
	Integrity       Code = 3 // opening or authenticating sealed data failed
	Unauthenticated Code = 4 // missing or wrong frame MAC
	Replay          Code = 5 // a frame nonce or request id seen before
	Stale           Code = 6 // a frame timestamp outside the allowed window
	Unavailable     Code = 7 // the HSM, the attester or the channel is down
	Internal        Code = 8
	// Forbidden: the caller's token or the policy set it came with does not
	// allow the operation (missing, forged, expired or foreign token, a
	// policy set whose MAC fails or that is older than one the enclave has
	// seen, or a policy decision of deny). It never says which.
	Forbidden Code = 9
	// Conflict: the request does not extend the newest version the
	// enclave vouched for (its durable floor): a policy, guardrail or
	// identity record not newer than the sealed one, an audit head that
	// does not extend the last signed head. A replay or a lost race
	// between two changes; re-read and retry.
	Conflict Code = 10
	// PrivateKeyBlocked: the value is a private_key or ssh_key (by the
	// type bound into its sealed blob; a legacy blob that binds no type
	// counts as one) and the caller is an agent with the intents API,
	// which signs through the enclave and never reads raw keys.
	PrivateKeyBlocked Code = 11
	// KEKDestroyed: the KEK version that sealed the value is gone from the
	// HSM (destroyed, or lost with the token); the value can never be
	// opened again. The proxy names the vault and version from its row.
	KEKDestroyed Code = 12
)

// lastCode is the highest Code defined.
const lastCode = KEKDestroyed

// Sentinel errors, one per non-OK Code.
var (
	ErrBadRequest        = errors.New("enclave: bad request")
	ErrNotFound          = errors.New("enclave: not found")
	ErrIntegrity         = errors.New("enclave: integrity check failed")
	ErrUnauthenticated   = errors.New("enclave: frame not authenticated")
	ErrReplay            = errors.New("enclave: replayed frame")
	ErrStale             = errors.New("enclave: stale frame")
	ErrUnavailable       = errors.New("enclave: unavailable")
	ErrInternal          = errors.New("enclave: internal error")
	ErrForbidden         = errors.New("enclave: forbidden")
	ErrConflict          = errors.New("enclave: not the newest version")
	ErrPrivateKeyBlocked = errors.New("enclave: private keys are not opened for an intents agent")
	ErrKEKDestroyed      = errors.New("enclave: key-encryption key destroyed")
)

// ErrAddress marks an enclave address that does not parse. It never crosses
// the channel.
var ErrAddress = errors.New("invalid enclave address")

// codeErrors is indexed by Code; the order of checks in CodeOf follows it.
var codeErrors = [...]error{
	OK:                nil,
	BadRequest:        ErrBadRequest,
	NotFound:          ErrNotFound,
	Integrity:         ErrIntegrity,
	Unauthenticated:   ErrUnauthenticated,
	Replay:            ErrReplay,
	Stale:             ErrStale,
	Unavailable:       ErrUnavailable,
	Internal:          ErrInternal,
	Forbidden:         ErrForbidden,
	Conflict:          ErrConflict,
	PrivateKeyBlocked: ErrPrivateKeyBlocked,
	KEKDestroyed:      ErrKEKDestroyed,
}

// CodeOf maps an error to its Code: nil is OK, an error wrapping one of the
// sentinels gets that sentinel's code (the first in Code order when it wraps
// several) and anything else is Internal.
func CodeOf(err error) Code {
	if err == nil {
		return OK
	}
	for c := BadRequest; c <= lastCode; c++ {
		if errors.Is(err, codeErrors[c]) {
			return c
		}
	}
	return Internal
}

// Err maps a Code back to its sentinel: OK is nil and an unknown code is
// ErrInternal.
func Err(c Code) error {
	if c == OK {
		return nil
	}
	if int(c) < len(codeErrors) {
		return codeErrors[c]
	}
	return ErrInternal
}

// String names the code for logs.
func (c Code) String() string {
	switch c {
	case OK:
		return "ok"
	case BadRequest:
		return "bad_request"
	case NotFound:
		return "not_found"
	case Integrity:
		return "integrity"
	case Unauthenticated:
		return "unauthenticated"
	case Replay:
		return "replay"
	case Stale:
		return "stale"
	case Unavailable:
		return "unavailable"
	case Internal:
		return "internal"
	case Forbidden:
		return "forbidden"
	case Conflict:
		return "conflict"
	case PrivateKeyBlocked:
		return "private_key_blocked"
	case KEKDestroyed:
		return "kek_destroyed"
	default:
		return "unknown"
	}
}
