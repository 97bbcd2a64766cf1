package wire

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// AuditHeadPrefix starts every signed audit chain head message.
const AuditHeadPrefix = "ocv-audit-head-v1\n"

// SignAuditHeadRequest asks the enclave to sign an organization's audit
// chain head: the sequence number and id of the newest sealed event and its
// chain hash.
type SignAuditHeadRequest struct {
	OrgID   string
	Seq     uint64
	EventID int64
	Hash    [32]byte
}

// Append implements Message.
func (m *SignAuditHeadRequest) Append(b []byte) ([]byte, error) {
	b, err := appendString(b, m.OrgID, MaxIDLen, "org id")
	if err != nil {
		return b, err
	}
	b = appendU64(b, m.Seq)
	b = appendU64(b, uint64(m.EventID))
	return append(b, m.Hash[:]...), nil
}

// Decode implements Message.
func (m *SignAuditHeadRequest) Decode(b []byte) error {
	d := decoder{b: b}
	m.OrgID = d.str(MaxIDLen, "org id")
	m.Seq = d.u64("seq")
	m.EventID = int64(d.u64("event id"))
	d.fixed(m.Hash[:], "hash")
	return d.finish()
}

// SignAuditHeadResponse carries the ES256 signature (raw r‖s, 64 bytes,
// low-S) over SHA-256 of AuditHeadMessage, and the kid of the key.
type SignAuditHeadResponse struct {
	Signature []byte
	KID       string
}

// Append implements Message.
func (m *SignAuditHeadResponse) Append(b []byte) ([]byte, error) {
	b, err := appendBytes(b, m.Signature, MaxShortLen, "signature")
	if err != nil {
		return b, err
	}
	return appendString(b, m.KID, MaxShortLen, "kid")
}

// Decode implements Message.
func (m *SignAuditHeadResponse) Decode(b []byte) error {
	d := decoder{b: b}
	m.Signature = d.bytes(MaxShortLen, "signature")
	m.KID = d.str(MaxShortLen, "kid")
	return d.finish()
}

// AuditHeadMessage builds the exact message the enclave signs for an audit
// chain head, so that a verifier can rebuild it:
//
//	"ocv-audit-head-v1\n" + org + "\n" + seq + "\n" + eventID + "\n" + hex(hash)
//
// with seq and eventID in decimal and hash in lowercase hex. An empty org,
// or one holding a control character (which could shift the fields), gives
// an error wrapping ErrBadRequest.
func AuditHeadMessage(orgID string, seq uint64, eventID int64, hash [32]byte) ([]byte, error) {
	if orgID == "" || len(orgID) > MaxIDLen {
		return nil, fmt.Errorf("%w: org id length", ErrBadRequest)
	}
	if strings.ContainsFunc(orgID, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return nil, fmt.Errorf("%w: org id has a control character", ErrBadRequest)
	}
	b := make([]byte, 0, len(AuditHeadPrefix)+len(orgID)+3*21+2*len(hash))
	b = append(b, AuditHeadPrefix...)
	b = append(b, orgID...)
	b = append(b, '\n')
	b = strconv.AppendUint(b, seq, 10)
	b = append(b, '\n')
	b = strconv.AppendInt(b, eventID, 10)
	b = append(b, '\n')
	return hex.AppendEncode(b, hash[:]), nil
}
