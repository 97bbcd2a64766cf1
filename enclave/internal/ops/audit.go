package ops

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/opencustody/ocv/enclave/internal/floors"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/auditchain"
)

// auditFloor names the floor that holds an organization's last signed
// audit head: Version = its sequence number, Digest = its chain hash.
func auditFloor(orgID string) string { return "audit/" + orgID }

// ExtendAuditHead computes the organization's chain from the presented
// previous head over the event digests and signs the new head, but only
// when that chain passes through the last head the enclave signed for the
// organization (its floor, read fresh from the HSM):
//
//   - the previous head is the floor: the usual extension;
//   - the previous head is earlier and the chain reaches exactly the floor
//     on the way: a retry of an extension whose answer the proxy lost (it
//     crashed before storing the head); the chain continues from the floor,
//     and when it ends there the floor's head is signed again;
//   - no floor was ever written: trust on first use, the previous head is
//     taken as given (an organization whose chain predates this operation,
//     or the genesis of a new one; docs/threat-model.d/audit.md).
//
// Anything else (a rewritten chain, a sequence number past the floor, a
// chain that falls short of it) is wire.ErrConflict, and nothing is signed.
func (h *Handler) ExtendAuditHead(ctx context.Context, req *wire.ExtendAuditHeadRequest) (wire.ExtendAuditHeadResponse, error) {
	n := uint64(len(req.Digests))
	switch {
	case n == 0 || n > wire.MaxAuditDigests:
		return wire.ExtendAuditHeadResponse{}, fmt.Errorf("%w: 1 to %d digests", wire.ErrBadRequest, wire.MaxAuditDigests)
	case req.PrevSeq > math.MaxInt64-n:
		return wire.ExtendAuditHeadResponse{}, fmt.Errorf("%w: sequence number out of range", wire.ErrBadRequest)
	case req.PrevSeq == 0 && req.PrevHash != [32]byte{}:
		return wire.ExtendAuditHeadResponse{}, fmt.Errorf("%w: a chain starts at the genesis hash", wire.ErrBadRequest)
	}
	// The head message validates the org id before any HSM access.
	if _, err := wire.AuditHeadMessage(req.OrgID, req.PrevSeq+n, req.LastEventID, [32]byte{}); err != nil {
		return wire.ExtendAuditHeadResponse{}, err
	}
	name := auditFloor(req.OrgID)
	floor, err := h.floors.Load(ctx, name)
	unfloored := errors.Is(err, floors.ErrNoFloor)
	if err != nil && !unfloored {
		return wire.ExtendAuditHeadResponse{}, err
	}
	seq, hash := req.PrevSeq, req.PrevHash
	through := unfloored || floor.Matches(seq, hash)
	if !unfloored && seq > floor.Version {
		return wire.ExtendAuditHeadResponse{}, fmt.Errorf("%w: audit head %d of org %s is past the last signed one", wire.ErrConflict, seq, req.OrgID)
	}
	for i := range req.Digests {
		hash = auditchain.Link(hash[:], req.Digests[i])
		seq++
		if !through && seq == floor.Version {
			if through = floor.Matches(seq, hash); !through {
				break
			}
		}
	}
	if !through {
		return wire.ExtendAuditHeadResponse{}, fmt.Errorf("%w: the chain of org %s does not extend its last signed head", wire.ErrConflict, req.OrgID)
	}
	if unfloored || seq > floor.Version {
		err := h.floors.Advance(ctx, name, floors.Floor{Version: seq, Digest: hash})
		if errors.Is(err, floors.ErrSuperseded) {
			return wire.ExtendAuditHeadResponse{}, fmt.Errorf("%w: another enclave extended the chain of org %s", wire.ErrConflict, req.OrgID)
		}
		if err != nil {
			return wire.ExtendAuditHeadResponse{}, err
		}
	}
	msg, err := wire.AuditHeadMessage(req.OrgID, seq, req.LastEventID, hash)
	if err != nil {
		return wire.ExtendAuditHeadResponse{}, err
	}
	sig, err := h.jwt.sign(ctx, msg)
	if err != nil {
		return wire.ExtendAuditHeadResponse{}, err
	}
	return wire.ExtendAuditHeadResponse{Seq: seq, Hash: hash, Signature: sig, KID: h.jwt.kid}, nil
}
