package auditchain

import (
	"crypto/subtle"
	"fmt"
)

// BrokenLinkError names the first event at which a chain stops verifying.
type BrokenLinkError struct {
	OrgID    string
	ChainSeq int64
	EventID  int64
	Reason   string
}

func (e *BrokenLinkError) Error() string {
	return fmt.Sprintf("audit chain of org %s broken at seq %d (event %d): %s", e.OrgID, e.ChainSeq, e.EventID, e.Reason)
}

// Walker verifies one organization's chain, event by event, in chain order.
type Walker struct {
	orgID    string
	prevHash []byte
	prevID   int64
	seq      int64
	// current is set once an event links with Hash: from then on the
	// legacy link is refused, so legacy links form at most a prefix.
	current bool
}

// NewWalker starts a walk at the genesis of orgID's chain.
func NewWalker(orgID string) *Walker {
	return &Walker{orgID: orgID, prevHash: Genesis}
}

// Next checks e, the next event in chain order, and returns a
// *BrokenLinkError for the first inconsistency.
func (w *Walker) Next(e *Event) error {
	broken := func(reason string) error {
		return &BrokenLinkError{OrgID: w.orgID, ChainSeq: w.seq + 1, EventID: e.ID, Reason: reason}
	}
	switch {
	case e.OrgID != w.orgID:
		return broken("event belongs to another organization")
	case e.ChainSeq != w.seq+1:
		return broken(fmt.Sprintf("sequence jumps to %d (events missing)", e.ChainSeq))
	case e.PrevID != w.prevID:
		return broken(fmt.Sprintf("prev_id is %d, want %d", e.PrevID, w.prevID))
	}
	switch {
	case subtle.ConstantTimeCompare(Hash(w.prevHash, e), e.Hash) == 1:
		w.current = true
	case !w.current && subtle.ConstantTimeCompare(LegacyHash(w.prevHash, e), e.Hash) == 1:
	default:
		return broken("hash does not match the event's content")
	}
	w.prevHash, w.prevID, w.seq = e.Hash, e.ID, e.ChainSeq
	return nil
}

// Seq is the sequence number of the last verified event.
func (w *Walker) Seq() int64 { return w.seq }

// LastHash is the hash of the last verified event.
func (w *Walker) LastHash() []byte { return w.prevHash }
