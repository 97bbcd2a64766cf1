package auditchain

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// HeadRecord is one signed chain head as the external head sink keeps it:
// one JSON object per line, appended, in a file per organization. Hash is
// lowercase hex, Signature base64url (raw r‖s, 64 bytes) over SHA-256 of
// wire.AuditHeadMessage(OrgID, Seq, EventID, Hash).
type HeadRecord struct {
	OrgID     string    `json:"org_id"`
	Seq       int64     `json:"seq"`
	EventID   int64     `json:"event_id"`
	Hash      string    `json:"hash"`
	Signature string    `json:"signature"`
	KID       string    `json:"kid"`
	SignedAt  time.Time `json:"signed_at"`
}

// maxHeadLine bounds one line of a head file.
const maxHeadLine = 4096

// ReadHeads parses a head file. A line that does not parse is an error
// naming it: a sink is written whole lines at a time, so a damaged one is
// not skipped.
func ReadHeads(r io.Reader) ([]HeadRecord, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, maxHeadLine), maxHeadLine)
	var out []HeadRecord
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var h HeadRecord
		if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
			return nil, fmt.Errorf("head line %d: %w", line, err)
		}
		out = append(out, h)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading heads: %w", err)
	}
	return out, nil
}
