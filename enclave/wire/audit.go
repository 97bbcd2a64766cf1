package wire

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// AuditHeadPrefix starts every signed audit chain head message.
const AuditHeadPrefix = "ocv-audit-head-v1\n"

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
