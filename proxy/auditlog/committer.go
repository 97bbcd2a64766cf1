package auditlog

import (
	"context"
	"errors"
	"sync"

	"github.com/opencustody/ocv/internal/auditchain"
)

// ErrClosed is returned by Append after Close.
var ErrClosed = errors.New("audit log closed")

// Inserter stores a batch of events durably in one commit.
type Inserter interface {
	InsertEvents(ctx context.Context, evs []*auditchain.Event) error
}

type pending struct {
	ev   *auditchain.Event
	done chan error
}

// Committer groups the audit inserts of concurrent requests into shared
// commits: a worker takes every event waiting (up to the maximum batch),
// inserts them, already chained, in one transaction and wakes their
// requests. The batch adapts to the load with no timer: a lone request is
// committed at once, and under load the events that arrive while one batch
// commits form the next. One worker is the usual choice: a second one's
// batch would wait on the chain tips the first one holds anyway.
type Committer struct {
	db      Inserter
	queue   chan pending
	maxSize int
	wg      sync.WaitGroup
	closeMu sync.RWMutex
	closed  bool
	donePl  sync.Pool
}

// NewCommitter starts workers goroutines that insert batches of at most
// maxBatch events (Inserter.InsertEvents).
func NewCommitter(db Inserter, workers, maxBatch int) *Committer {
	c := &Committer{db: db, queue: make(chan pending, 4096), maxSize: maxBatch}
	c.donePl.New = func() any { return make(chan error, 1) }
	for range workers {
		c.wg.Add(1)
		go c.work()
	}
	return c
}

// Append stores ev durably and returns once it is committed, or with the
// error that kept it from being stored (the caller then fails the request).
func (c *Committer) Append(ctx context.Context, ev *auditchain.Event) error {
	c.closeMu.RLock()
	if c.closed {
		c.closeMu.RUnlock()
		return ErrClosed
	}
	done := c.donePl.Get().(chan error)
	select {
	case c.queue <- pending{ev: ev, done: done}:
	case <-ctx.Done():
		c.closeMu.RUnlock()
		c.donePl.Put(done)
		return ctx.Err()
	}
	c.closeMu.RUnlock()
	// The worker always answers, so done can be reused afterwards; waiting
	// on ctx here would leak it into the pool while a send is pending.
	err := <-done
	c.donePl.Put(done)
	return err
}

func (c *Committer) work() {
	defer c.wg.Done()
	batch := make([]pending, 0, c.maxSize)
	evs := make([]*auditchain.Event, 0, c.maxSize)
	for first := range c.queue {
		batch = append(batch[:0], first)
	gather:
		for len(batch) < c.maxSize {
			select {
			case p, ok := <-c.queue:
				if !ok {
					break gather
				}
				batch = append(batch, p)
			default:
				break gather
			}
		}
		evs = evs[:0]
		for _, p := range batch {
			evs = append(evs, p.ev)
		}
		err := c.db.InsertEvents(context.Background(), evs)
		for i := range batch {
			batch[i].done <- err
			batch[i] = pending{}
		}
	}
}

// Close stops accepting events, flushes the queue and waits for the workers.
func (c *Committer) Close() {
	c.closeMu.Lock()
	if c.closed {
		c.closeMu.Unlock()
		return
	}
	c.closed = true
	close(c.queue)
	c.closeMu.Unlock()
	c.wg.Wait()
}

// QueueDepth is the number of events waiting for a worker.
func (c *Committer) QueueDepth() int { return len(c.queue) }
