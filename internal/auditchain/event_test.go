package auditchain

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func chain(n int) []*Event {
	var out []*Event
	prev, prevID := Genesis, int64(0)
	for i := 1; i <= n; i++ {
		e := &Event{
			OrgID: "org", ID: int64(i * 10), OccurredAt: time.Unix(1700000000, int64(i)*1000).UTC(),
			RequestID: "r", ActorType: "user", ActorID: "u", Action: "secret.read",
			Resource: "vault/x/secret/a", Outcome: OutcomeSuccess, Status: 200, ClientIP: "127.0.0.1",
			ChainSeq: int64(i), PrevID: prevID,
		}
		e.Hash = Hash(prev, e)
		prev, prevID = e.Hash, e.ID
		out = append(out, e)
	}
	return out
}

func TestWalker(t *testing.T) {
	tests := map[string]struct {
		mutate  func([]*Event) []*Event
		wantSeq int64 // 0: chain verifies
	}{
		"intact": {mutate: func(c []*Event) []*Event { return c }},
		// An edited field must change the hash.
		"edited action": {mutate: func(c []*Event) []*Event { c[2].Action = "secret.write"; return c }, wantSeq: 3},
		"edited status": {mutate: func(c []*Event) []*Event { c[0].Status = 403; return c }, wantSeq: 1},
		// A deleted event in the middle breaks the sequence.
		"deleted middle": {mutate: func(c []*Event) []*Event { return append(c[:1], c[2:]...) }, wantSeq: 2},
		// Re-hashing an edited event still breaks its successor's prev hash.
		"rehashed edit": {mutate: func(c []*Event) []*Event {
			c[1].Resource = "other"
			c[1].Hash = Hash(c[0].Hash, c[1])
			return c
		}, wantSeq: 3},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			w := NewWalker("org")
			var err error
			for _, e := range tc.mutate(chain(5)) {
				if err = w.Next(e); err != nil {
					break
				}
			}
			if tc.wantSeq == 0 {
				require.NoError(t, err)
				return
			}
			var be *BrokenLinkError
			require.True(t, errors.As(err, &be))
			require.Equal(t, tc.wantSeq, be.ChainSeq)
		})
	}
}

func TestOutcomeFor(t *testing.T) {
	require.Equal(t, OutcomeSuccess, OutcomeFor(204))
	require.Equal(t, OutcomeDenied, OutcomeFor(401))
	require.Equal(t, OutcomeDenied, OutcomeFor(403))
	require.Equal(t, OutcomeFailure, OutcomeFor(404))
}

// TestLegacyPrefix: legacy links verify only before the first current one.
func TestLegacyPrefix(t *testing.T) {
	build := func(legacy []bool) []*Event {
		c := chain(len(legacy))
		prev := Genesis
		for i, e := range c {
			if legacy[i] {
				e.Hash = LegacyHash(prev, e)
			} else {
				e.Hash = Hash(prev, e)
			}
			prev = e.Hash
		}
		return c
	}
	walk := func(c []*Event) error {
		w := NewWalker("org")
		for _, e := range c {
			if err := w.Next(e); err != nil {
				return err
			}
		}
		return nil
	}
	require.NoError(t, walk(build([]bool{true, true, false, false})))
	require.NoError(t, walk(build([]bool{true, true, true})))
	var be *BrokenLinkError
	require.True(t, errors.As(walk(build([]bool{true, false, true})), &be))
	require.Equal(t, int64(3), be.ChainSeq)
}

func TestHashIsLinkOfDigest(t *testing.T) {
	e := chain(1)[0]
	l := Link(Genesis, Digest(e))
	require.Equal(t, l[:], Hash(Genesis, e))
}
