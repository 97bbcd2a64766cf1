package wire

import "fmt"

// MaxAuditDigests bounds the events one ExtendAuditHead call chains.
const MaxAuditDigests = 1024

// ExtendAuditHeadRequest asks the enclave to extend an organization's audit
// chain from Prev (the head the proxy believes was signed last) over the
// digests of the events at PrevSeq+1 … PrevSeq+len(Digests), each digest
// SHA-256 of the event's canonical encoding (internal/auditchain). The
// enclave computes the chain itself and signs the new head only when the
// chain passes through the last head it signed for the organization.
// LastEventID is the id of the event at the new head, signed as given (it
// is bound into that event's digest, which a verifier checks).
type ExtendAuditHeadRequest struct {
	OrgID       string
	PrevSeq     uint64
	PrevHash    [32]byte
	LastEventID int64
	Digests     [][32]byte
}

// Append implements Message.
func (m *ExtendAuditHeadRequest) Append(b []byte) ([]byte, error) {
	if len(m.Digests) > MaxAuditDigests {
		return b, fmt.Errorf("%w: too many digests", ErrBadRequest)
	}
	b, err := appendString(b, m.OrgID, MaxIDLen, "org id")
	if err != nil {
		return b, err
	}
	b = appendU64(b, m.PrevSeq)
	b = append(b, m.PrevHash[:]...)
	b = appendU64(b, uint64(m.LastEventID))
	b = appendU32(b, uint32(len(m.Digests)))
	for i := range m.Digests {
		b = append(b, m.Digests[i][:]...)
	}
	return b, nil
}

// Decode implements Message.
func (m *ExtendAuditHeadRequest) Decode(b []byte) error {
	d := decoder{b: b}
	m.OrgID = d.str(MaxIDLen, "org id")
	m.PrevSeq = d.u64("prev seq")
	d.fixed(m.PrevHash[:], "prev hash")
	m.LastEventID = int64(d.u64("last event id"))
	n := d.u32("digest count")
	switch {
	case d.err != nil:
	case n > MaxAuditDigests:
		d.fail("digests", "too many")
	case uint64(n)*32 > uint64(len(d.b)):
		d.fail("digests", "truncated")
	default:
		m.Digests = make([][32]byte, n)
		for i := range m.Digests {
			d.fixed(m.Digests[i][:], "digest")
		}
	}
	if d.err != nil || n == 0 {
		m.Digests = nil
	}
	return d.finish()
}

// ExtendAuditHeadResponse is the new head: its sequence number and chain
// hash as the enclave computed them, the ES256 signature (raw r‖s, 64
// bytes, low-S) over SHA-256 of AuditHeadMessage, and the kid of the key.
type ExtendAuditHeadResponse struct {
	Seq       uint64
	Hash      [32]byte
	Signature []byte
	KID       string
}

// Append implements Message.
func (m *ExtendAuditHeadResponse) Append(b []byte) ([]byte, error) {
	b = appendU64(b, m.Seq)
	b = append(b, m.Hash[:]...)
	b, err := appendBytes(b, m.Signature, MaxShortLen, "signature")
	if err != nil {
		return b, err
	}
	return appendString(b, m.KID, MaxShortLen, "kid")
}

// Decode implements Message.
func (m *ExtendAuditHeadResponse) Decode(b []byte) error {
	d := decoder{b: b}
	m.Seq = d.u64("seq")
	d.fixed(m.Hash[:], "hash")
	m.Signature = d.bytes(MaxShortLen, "signature")
	m.KID = d.str(MaxShortLen, "kid")
	return d.finish()
}
