package wire

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestExtendAuditHeadBounds(t *testing.T) {
	require.True(t, OpExtendAuditHead.Valid())
	require.Equal(t, "extend_audit_head", OpExtendAuditHead.String())

	full := &ExtendAuditHeadRequest{OrgID: "o", Digests: make([][32]byte, MaxAuditDigests)}
	b, err := full.Append(nil)
	require.NoError(t, err)
	var got ExtendAuditHeadRequest
	require.NoError(t, got.Decode(b))
	require.Len(t, got.Digests, MaxAuditDigests)

	full.Digests = append(full.Digests, [32]byte{})
	_, err = full.Append(nil)
	require.ErrorIs(t, err, ErrBadRequest)

	// A count above the bound is refused before anything is allocated,
	// and so is a count the body cannot hold.
	hdr, err := (&ExtendAuditHeadRequest{OrgID: "o"}).Append(nil)
	require.NoError(t, err)
	over := append(bytes.Clone(hdr[:len(hdr)-4]), 0, 0, 0x04, 0x01)
	require.ErrorIs(t, got.Decode(over), ErrBadRequest)
	short := append(bytes.Clone(hdr[:len(hdr)-4]), 0, 0, 0, 2)
	require.ErrorIs(t, got.Decode(append(short, make([]byte, 33)...)), ErrBadRequest)
}

// auditMessages are samples of the audit messages for sampleMessages.
func auditMessages() map[string]struct{ in, out Message } {
	return map[string]struct{ in, out Message }{
		"extend audit head":       {&ExtendAuditHeadRequest{OrgID: "org", PrevSeq: 3, PrevHash: [32]byte{1}, LastEventID: 9, Digests: [][32]byte{{2}, {3}}}, &ExtendAuditHeadRequest{}},
		"extend audit head empty": {&ExtendAuditHeadRequest{OrgID: "org"}, &ExtendAuditHeadRequest{}},
		"extend audit head reply": {&ExtendAuditHeadResponse{Seq: 5, Hash: [32]byte{4}, Signature: bytes.Repeat([]byte{1}, 64), KID: "k"}, &ExtendAuditHeadResponse{}},
	}
}
