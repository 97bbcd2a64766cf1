package wire

import (
	"errors"
	"io"
	"sync"
)

// DefaultBatchBytes is the default bound of a BatchWriter's queue.
const DefaultBatchBytes = 256 << 10

// ErrWriterClosed is the sticky error of a BatchWriter after Close.
var ErrWriterClosed = errors.New("wire: batch writer closed")

// BatchWriter coalesces whole frames written by several goroutines into
// as few writes as it can: frames queued while a write is in progress go
// out together in the next single write. There is no writer goroutine and
// no timer: whoever flushes while nobody is writing becomes the writer and
// drains the queue until it is empty, so a lone frame is written at once
// (flush on idle) and frames are never held back waiting for company.
//
// Frames are written in the order they were queued and never split or
// interleaved. The queue is bounded: Queue blocks while it holds more than
// the bound (a slow peer pushes back on the producers). The first write
// error is sticky: every waiter and every later call returns it.
//
// A BatchWriter only moves bytes: frames are built, MAC'd and checked by
// its callers exactly as without it. It is safe for concurrent use.
type BatchWriter struct {
	w   io.Writer
	max int

	mu      sync.Mutex
	cond    sync.Cond
	pending []byte // frames queued for the next write
	spare   []byte // the buffer of the write in progress
	writing bool
	err     error
	// writes and queued count the writes made and the frames queued
	// (Stats).
	writes, queued uint64
}

// NewBatchWriter returns a BatchWriter on w whose queue holds at most
// maxBytes (DefaultBatchBytes when maxBytes <= 0; one frame larger than
// the bound still goes, alone).
func NewBatchWriter(w io.Writer, maxBytes int) *BatchWriter {
	if maxBytes <= 0 {
		maxBytes = DefaultBatchBytes
	}
	b := &BatchWriter{w: w, max: maxBytes}
	b.cond.L = &b.mu
	return b
}

// Queue appends a copy of frame to the queue without writing it, waiting
// while the queue is full. It returns the sticky error, if any.
func (b *BatchWriter) Queue(frame []byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.queueLocked(frame)
}

func (b *BatchWriter) queueLocked(frame []byte) error {
	for b.err == nil && len(b.pending) > 0 && len(b.pending)+len(frame) > b.max {
		if !b.writing {
			b.drainLocked()
			continue
		}
		b.cond.Wait()
	}
	if b.err != nil {
		return b.err
	}
	b.pending = append(b.pending, frame...)
	b.queued++
	return nil
}

// Send queues frame and flushes. It returns once frame is written or in
// the hands of the goroutine writing now (which writes it next); a later
// failure of that write shows in Err and in every later call.
func (b *BatchWriter) Send(frame []byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.queueLocked(frame); err != nil {
		return err
	}
	if !b.writing {
		b.drainLocked()
	}
	return b.err
}

// Flush writes the queue unless another goroutine is writing (it drains
// the queue before it stops). It returns the sticky error, if any.
func (b *BatchWriter) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.writing {
		b.drainLocked()
	}
	return b.err
}

// Sync waits until every frame queued so far is written and returns the
// sticky error, if any.
func (b *BatchWriter) Sync() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.err == nil && (b.writing || len(b.pending) > 0) {
		if !b.writing {
			b.drainLocked()
			continue
		}
		b.cond.Wait()
	}
	return b.err
}

// Err returns the sticky error, if any.
func (b *BatchWriter) Err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// Close fails every later call with ErrWriterClosed (unless a write failed
// first), after the frames queued so far are written. It zeroes the
// buffers, which may have held responses. It returns the sticky write
// error, if any.
func (b *BatchWriter) Close() error {
	err := b.Sync()
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.writing {
		b.cond.Wait()
	}
	if b.err == nil {
		b.err = ErrWriterClosed
	}
	clear(b.pending[:cap(b.pending)])
	clear(b.spare[:cap(b.spare)])
	b.pending, b.spare = nil, nil
	b.cond.Broadcast()
	if errors.Is(err, ErrWriterClosed) {
		return nil
	}
	return err
}

// Stats returns how many writes were made and how many frames were queued.
func (b *BatchWriter) Stats() (writes, frames uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.writes, b.queued
}

// drainLocked writes the queue, one write per batch, until it is empty or
// a write fails. b.mu is held on entry and on return, not during writes.
func (b *BatchWriter) drainLocked() {
	b.writing = true
	for b.err == nil && len(b.pending) > 0 {
		batch := b.pending
		b.pending = b.spare[:0]
		b.mu.Unlock()
		_, err := b.w.Write(batch)
		clear(batch) // responses may hold secrets
		b.mu.Lock()
		b.writes++
		b.spare = batch[:0]
		if err != nil && b.err == nil {
			b.err = err
		}
		b.cond.Broadcast() // room in the queue, or an error for everyone
	}
	b.writing = false
	b.cond.Broadcast()
}
