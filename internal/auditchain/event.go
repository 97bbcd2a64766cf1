package auditchain

import (
	"crypto/sha256"
	"encoding/binary"
	"strconv"
	"time"
)

// SystemOrg is the organization id of events that belong to no organization:
// public routes and failed sign-ins.
const SystemOrg = "00000000-0000-0000-0000-000000000000"

// Outcomes of a request.
const (
	OutcomeSuccess = "success"
	OutcomeDenied  = "denied"
	OutcomeFailure = "failure"
)

// Event is one audited request. It never holds a secret value, key, token or
// password: Resource names what was touched (a vault id and path), not what
// it contains.
type Event struct {
	OrgID      string
	ID         int64 // assigned by the database
	OccurredAt time.Time
	RequestID  string
	ActorType  string // "user", "agent", "anonymous"
	ActorID    string
	Action     string // "secret.read", "vault.create", ...
	Resource   string
	Outcome    string
	Status     int
	ClientIP   string

	// Chain fields, set by the sealer.
	ChainSeq int64
	PrevID   int64
	Hash     []byte

	// OnStored, when set, is called once the transaction that inserted
	// the event has committed (internal/store calls it; it is never
	// stored). The proxy's request entry sets it, so a write that records
	// its event in its own transaction needs no second step to keep the
	// audit middleware from recording it again.
	OnStored func()
}

// OutcomeFor maps an HTTP status to an outcome.
func OutcomeFor(status int) string {
	switch {
	case status < 400:
		return OutcomeSuccess
	case status == 401 || status == 403:
		return OutcomeDenied
	default:
		return OutcomeFailure
	}
}

// Genesis is the previous hash of the first event of every chain.
var Genesis = make([]byte, sha256.Size)

// Digest returns SHA-256(canonical(e)), what the enclave is given for e.
func Digest(e *Event) [sha256.Size]byte { return sha256.Sum256(Canonical(e)) }

// Link returns the chain hash after prev for an event of the given digest:
// SHA-256(prev ‖ digest). The enclave computes the same link from the
// digests it is sent (enclave/internal/ops, ExtendAuditHead).
func Link(prev []byte, digest [sha256.Size]byte) [sha256.Size]byte {
	var buf [2 * sha256.Size]byte
	copy(buf[:sha256.Size], prev)
	copy(buf[sha256.Size:], digest[:])
	return sha256.Sum256(buf[:])
}

// Hash returns the chain hash of e at position e.ChainSeq after the event
// e.PrevID: Link(prev, Digest(e)).
func Hash(prev []byte, e *Event) []byte {
	h := Link(prev, Digest(e))
	return h[:]
}

// LegacyHash is the link of chains sealed before the enclave extended them:
// SHA-256(prev ‖ canonical(e)). A verifier accepts it only for a chain's
// prefix (see Walker).
func LegacyHash(prev []byte, e *Event) []byte {
	h := sha256.New()
	h.Write(prev)
	h.Write(Canonical(e))
	return h.Sum(nil)
}

// Canonical is the unambiguous encoding of an event that the chain hashes:
// a label, then every field as a 4-byte big-endian length and its bytes.
// Timestamps are UTC at microsecond precision, as PostgreSQL stores them.
func Canonical(e *Event) []byte {
	fields := [...]string{
		e.OrgID,
		strconv.FormatInt(e.ID, 10),
		strconv.FormatInt(e.ChainSeq, 10),
		strconv.FormatInt(e.PrevID, 10),
		e.OccurredAt.UTC().Truncate(time.Microsecond).Format(time.RFC3339Nano),
		e.RequestID,
		e.ActorType,
		e.ActorID,
		e.Action,
		e.Resource,
		e.Outcome,
		strconv.Itoa(e.Status),
		e.ClientIP,
	}
	n := len("ocv-audit-v1")
	for _, f := range fields {
		n += 4 + len(f)
	}
	b := make([]byte, 0, n)
	b = append(b, "ocv-audit-v1"...)
	for _, f := range fields {
		b = binary.BigEndian.AppendUint32(b, uint32(len(f)))
		b = append(b, f...)
	}
	return b
}
