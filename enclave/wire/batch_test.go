package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// gateWriter records every write; while gated, writes block until the
// test opens the gate, so frames pile up behind a write in progress.
type gateWriter struct {
	mu      sync.Mutex
	writes  [][]byte
	gate    chan struct{} // nil: never block
	started chan struct{} // receives one value per write begun
	err     error
}

func (w *gateWriter) Write(b []byte) (int, error) {
	if w.started != nil {
		w.started <- struct{}{}
	}
	if w.gate != nil {
		<-w.gate
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	w.writes = append(w.writes, bytes.Clone(b))
	return len(b), nil
}

func (w *gateWriter) all() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Join(w.writes, nil)
}

func (w *gateWriter) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.writes)
}

// frameOf is an 8-byte frame carrying n.
func frameOf(n int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }

func TestBatchWriterFlushOnIdle(t *testing.T) {
	w := &gateWriter{}
	b := NewBatchWriter(w, 0)
	require.NoError(t, b.Send(frameOf(1)))
	// Nobody else was writing: the lone frame went out at once.
	require.Equal(t, frameOf(1), w.all())
	require.NoError(t, b.Queue(frameOf(2)))
	require.NoError(t, b.Queue(frameOf(3)))
	require.Equal(t, 1, w.count(), "queued frames wait for a flush")
	require.NoError(t, b.Flush())
	require.Equal(t, 2, w.count(), "one write for the two queued frames")
	require.Equal(t, append(append(frameOf(1), frameOf(2)...), frameOf(3)...), w.all())
	writes, frames := b.Stats()
	require.Equal(t, uint64(2), writes)
	require.Equal(t, uint64(3), frames)
	require.NoError(t, b.Close())
}

func TestBatchWriterCoalescesBehindAWrite(t *testing.T) {
	w := &gateWriter{gate: make(chan struct{}), started: make(chan struct{}, 16)}
	b := NewBatchWriter(w, 0)
	done := make(chan error, 1)
	go func() { done <- b.Send(frameOf(0)) }()
	<-w.started // frame 0's write is in progress and blocked
	// Frames sent meanwhile are handed to the writing goroutine.
	for i := 1; i <= 5; i++ {
		require.NoError(t, b.Send(frameOf(i)))
	}
	close(w.gate)
	require.NoError(t, <-done)
	require.NoError(t, b.Sync())
	require.Equal(t, 2, w.count(), "frames 1-5 share one write")
	var want []byte
	for i := range 6 {
		want = append(want, frameOf(i)...)
	}
	require.Equal(t, want, w.all(), "frames keep their order")
}

func TestBatchWriterOrderUnderConcurrency(t *testing.T) {
	w := &gateWriter{}
	b := NewBatchWriter(w, 64)
	const producers, each = 8, 200
	var wg sync.WaitGroup
	for p := range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if err := b.Send(frameOf(p<<16 | i)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	require.NoError(t, b.Sync())
	out := w.all()
	require.Len(t, out, 8*producers*each, "no frame lost, split or duplicated")
	next := make([]int, producers)
	for i := 0; i < len(out); i += 8 {
		v := int(binary.BigEndian.Uint64(out[i:]))
		p, n := v>>16, v&0xffff
		require.Equal(t, next[p], n, "producer %d's frames out of order", p)
		next[p]++
	}
	require.NoError(t, b.Close())
}

func TestBatchWriterBoundedQueue(t *testing.T) {
	w := &gateWriter{gate: make(chan struct{}), started: make(chan struct{}, 16)}
	b := NewBatchWriter(w, 16) // two 8-byte frames
	go func() { _ = b.Send(frameOf(0)) }()
	<-w.started
	require.NoError(t, b.Queue(frameOf(1)))
	require.NoError(t, b.Queue(frameOf(2)))
	blocked := make(chan error, 1)
	go func() { blocked <- b.Queue(frameOf(3)) }()
	select {
	case err := <-blocked:
		t.Fatalf("Queue past the bound returned (%v) while the queue was full", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(w.gate) // the write drains the queue: room for frame 3
	select {
	case err := <-blocked:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Queue stayed blocked after the queue drained")
	}
	require.NoError(t, b.Sync())
	var want []byte
	for i := range 4 {
		want = append(want, frameOf(i)...)
	}
	require.Equal(t, want, w.all())
}

func TestBatchWriterOversizedFrameGoesAlone(t *testing.T) {
	w := &gateWriter{}
	b := NewBatchWriter(w, 4)
	big := bytes.Repeat([]byte{7}, 100)
	require.NoError(t, b.Queue(big))
	require.NoError(t, b.Queue(frameOf(1))) // flushes the big frame first
	require.NoError(t, b.Sync())
	require.Equal(t, append(bytes.Clone(big), frameOf(1)...), w.all())
}

func TestBatchWriterErrorReachesEveryWaiter(t *testing.T) {
	boom := errors.New("peer gone")
	w := &gateWriter{gate: make(chan struct{}), started: make(chan struct{}, 16), err: boom}
	b := NewBatchWriter(w, 16)
	first := make(chan error, 1)
	go func() { first <- b.Send(frameOf(0)) }()
	<-w.started
	require.NoError(t, b.Queue(frameOf(1)))
	require.NoError(t, b.Queue(frameOf(2)))
	const waiters = 4
	errs := make(chan error, 2*waiters)
	for range waiters {
		go func() { errs <- b.Queue(frameOf(9)) }() // blocked: queue full
		go func() { errs <- b.Sync() }()            // blocked: write in progress
	}
	time.Sleep(20 * time.Millisecond)
	close(w.gate)
	require.ErrorIs(t, <-first, boom)
	for range 2 * waiters {
		select {
		case err := <-errs:
			require.ErrorIs(t, err, boom)
		case <-time.After(10 * time.Second):
			t.Fatal("a waiter never learnt of the write error")
		}
	}
	require.ErrorIs(t, b.Send(frameOf(3)), boom, "the error is sticky")
	require.ErrorIs(t, b.Err(), boom)
	require.ErrorIs(t, b.Close(), boom)
}

func TestBatchWriterClose(t *testing.T) {
	w := &gateWriter{}
	b := NewBatchWriter(w, 0)
	require.NoError(t, b.Queue(frameOf(1)))
	require.NoError(t, b.Close(), "Close writes what was queued")
	require.Equal(t, frameOf(1), w.all())
	require.ErrorIs(t, b.Send(frameOf(2)), ErrWriterClosed)
	require.NoError(t, b.Close(), "Close is idempotent")
}

func BenchmarkBatchWriterParallel(b *testing.B) {
	bw := NewBatchWriter(discard{}, 0)
	frame := make([]byte, 300)
	b.SetBytes(int64(len(frame)))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := bw.Send(frame); err != nil {
				b.Error(err)
				return
			}
		}
	})
	writes, frames := bw.Stats()
	b.ReportMetric(float64(frames)/float64(max(writes, 1)), "frames/write")
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }
