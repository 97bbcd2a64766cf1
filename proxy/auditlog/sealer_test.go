package auditlog

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
)

const testOrg = "0190b5a3-0000-7000-8000-000000000001"

// memChain is an in-memory ChainStore for one organization.
type memChain struct {
	evs       []*auditchain.Event // sealed or not, in id order
	heads     []store.SignedHead
	failSaves int
	// sealCalls counts SealChain calls; arrive, when set, adds events
	// during each one (requests that keep coming).
	sealCalls int
	arrive    int
}

func (m *memChain) add(n int) {
	for range n {
		m.evs = append(m.evs, &auditchain.Event{OrgID: testOrg, ID: int64(len(m.evs) + 1), Action: "secret.read",
			OccurredAt: time.Unix(1700000000, 0).UTC()})
	}
}

func (m *memChain) UnsealedOrgs(context.Context, int) ([]string, error) {
	for _, e := range m.evs {
		if e.ChainSeq == 0 {
			return []string{testOrg}, nil
		}
	}
	return nil, nil
}

func (m *memChain) SealChain(_ context.Context, _ string, max int) (store.ChainHead, int, error) {
	m.sealCalls++
	defer m.add(m.arrive)
	head := store.ChainHead{OrgID: testOrg, Hash: auditchain.Genesis}
	sealed := 0
	for _, e := range m.evs {
		if e.ChainSeq == 0 && sealed < max {
			e.ChainSeq, e.PrevID = head.Seq+1, head.EventID
			e.Hash = auditchain.Hash(head.Hash, e)
			sealed++
		}
		if e.ChainSeq != 0 {
			head = store.ChainHead{OrgID: testOrg, Seq: e.ChainSeq, EventID: e.ID, Hash: e.Hash}
		}
	}
	return head, sealed, nil
}

func (m *memChain) UnsignedOrgs(ctx context.Context, _ int) ([]string, error) {
	last, _, _ := m.LastHead(ctx, testOrg)
	for _, e := range m.evs {
		if e.ChainSeq > last.Seq {
			return []string{testOrg}, nil
		}
	}
	return nil, nil
}

func (m *memChain) LastHead(context.Context, string) (store.SignedHead, bool, error) {
	if len(m.heads) == 0 {
		return store.SignedHead{}, false, nil
	}
	return m.heads[len(m.heads)-1], true, nil
}

func (m *memChain) ChainEvents(_ context.Context, _ string, after int64, limit int) ([]*auditchain.Event, error) {
	var out []*auditchain.Event
	for _, e := range m.evs {
		if e.ChainSeq > after && len(out) < limit {
			out = append(out, e)
		}
	}
	return out, nil
}

func (m *memChain) SaveHead(_ context.Context, h store.SignedHead) error {
	if m.failSaves > 0 {
		m.failSaves--
		return errors.New("database down")
	}
	m.heads = append(m.heads, h)
	return nil
}

// fakeEnclave follows the enclave's rule (enclave/internal/ops,
// ExtendAuditHead): sign only a chain that passes through the floor.
type fakeEnclave struct {
	floorSeq  uint64
	floorHash [32]byte
	calls     int
	fail      int
}

func (f *fakeEnclave) ExtendAuditHead(_ context.Context, req wire.ExtendAuditHeadRequest) (wire.ExtendAuditHeadResponse, error) {
	f.calls++
	if f.fail > 0 {
		f.fail--
		return wire.ExtendAuditHeadResponse{}, wire.ErrUnavailable
	}
	seq, hash := req.PrevSeq, req.PrevHash
	through := seq == f.floorSeq && hash == f.floorHash
	for _, d := range req.Digests {
		hash = auditchain.Link(hash[:], d)
		seq++
		if seq == f.floorSeq && hash == f.floorHash {
			through = true
		}
	}
	if !through || seq < f.floorSeq {
		return wire.ExtendAuditHeadResponse{}, wire.ErrConflict
	}
	f.floorSeq, f.floorHash = seq, hash
	return wire.ExtendAuditHeadResponse{Seq: seq, Hash: hash, Signature: bytes.Repeat([]byte{1}, 64), KID: "k"}, nil
}

func newTestSealer(t *testing.T) (*Sealer, *memChain, *fakeEnclave, string) {
	dir := t.TempDir()
	sink, err := NewDirSink(dir)
	require.NoError(t, err)
	db, enc := &memChain{}, &fakeEnclave{}
	s := NewSealer(db, enc, sink, time.Second, slog.New(slog.NewTextHandler(io.Discard, nil)))
	s.Failures = new(atomic.Uint64)
	return s, db, enc, filepath.Join(dir, testOrg+".jsonl")
}

func readSink(t *testing.T, path string) []auditchain.HeadRecord {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	recs, err := auditchain.ReadHeads(f)
	require.NoError(t, err)
	return recs
}

func TestSealerSignsInBoundedCalls(t *testing.T) {
	s, db, enc, sink := newTestSealer(t)
	db.add(2*wire.MaxAuditDigests + 5)
	require.NoError(t, s.SealOnce(context.Background()))
	require.Equal(t, 3, enc.calls)
	require.Len(t, db.heads, 3)
	last := db.heads[2]
	require.Equal(t, int64(2*wire.MaxAuditDigests+5), last.Seq)
	require.Equal(t, db.evs[len(db.evs)-1].Hash, last.Hash)
	recs := readSink(t, sink)
	require.Len(t, recs, 3)
	require.Equal(t, last.Seq, recs[2].Seq)
	require.Zero(t, s.Failures.Load())
}

// TestSealerRunsOnceUnderLoad: events that keep arriving while a run
// chains are left for the next run: one chaining and one enclave call per
// run, not a loop of small batches; only a full batch is followed at once.
func TestSealerRunsOnceUnderLoad(t *testing.T) {
	s, db, enc, _ := newTestSealer(t)
	db.add(10)
	db.arrive = 3
	require.NoError(t, s.SealOnce(context.Background()))
	require.Equal(t, 1, db.sealCalls)
	require.Equal(t, 1, enc.calls)
	require.Equal(t, int64(10), db.heads[0].Seq)

	db.arrive = 0
	db.add(sealBatch + 1)
	require.NoError(t, s.SealOnce(context.Background()))
	require.Equal(t, 3, db.sealCalls)
}

// TestSealerRetriesFailedHeads: a refused signature and a head the
// database lost are retried at the next run; the enclave's floor ends at
// the chain's end, counted once.
func TestSealerRetriesFailedHeads(t *testing.T) {
	s, db, enc, sink := newTestSealer(t)
	db.add(3)
	enc.fail = 1
	require.NoError(t, s.SealOnce(context.Background()))
	require.Equal(t, uint64(1), s.Failures.Load())
	require.Empty(t, db.heads)

	// Signed, written to the sink, lost by the database.
	db.failSaves = 1
	require.NoError(t, s.SealOnce(context.Background()))
	require.Equal(t, uint64(2), s.Failures.Load())
	require.Empty(t, db.heads)
	require.Equal(t, uint64(3), enc.floorSeq)

	// The retry starts from the last head the database kept (genesis),
	// passes through the floor and goes on.
	db.add(2)
	require.NoError(t, s.SealOnce(context.Background()))
	require.Equal(t, uint64(2), s.Failures.Load())
	require.Len(t, db.heads, 1)
	require.Equal(t, int64(5), db.heads[0].Seq)
	require.Equal(t, uint64(5), enc.floorSeq)
	recs := readSink(t, sink)
	require.Equal(t, []int64{3, 5}, []int64{recs[0].Seq, recs[1].Seq})
}

// TestSealerRefusesADifferentChain: when the database's chain is not the
// enclave's (rewritten after a head was signed), nothing is signed and the
// failure is counted.
func TestSealerRefusesADifferentChain(t *testing.T) {
	s, db, enc, _ := newTestSealer(t)
	db.add(3)
	require.NoError(t, s.SealOnce(context.Background()))
	db.heads = nil // the heads deleted, the chain rewritten
	db.evs[1].Action = "secret.write"
	db.evs[1].Hash = auditchain.Hash(db.evs[0].Hash, db.evs[1])
	db.evs[2].Hash = auditchain.Hash(db.evs[1].Hash, db.evs[2])
	require.NoError(t, s.SealOnce(context.Background()))
	require.Equal(t, uint64(1), s.Failures.Load())
	require.Empty(t, db.heads)
	require.Equal(t, uint64(3), enc.floorSeq)
}

func TestHeadFileRefusesPaths(t *testing.T) {
	for _, org := range []string{"", "../x", "a/b", "a.b", string(make([]byte, 65))} {
		_, err := HeadFile("/d", org)
		require.Error(t, err, org)
	}
	p, err := HeadFile("/d", testOrg)
	require.NoError(t, err)
	require.Equal(t, "/d/"+testOrg+".jsonl", p)
}
