package enclave

import (
	"github.com/opencustody/ocv/enclave/wire"
)

// maxReplayEntries bounds the nonces remembered per session.
const maxReplayEntries = 4096

type replayEntry struct {
	nonce [wire.NonceSize]byte
	ts    int64
}

// replayGuard is a session's replay cache. It applies two checks:
//
//   - request ids strictly increase within a session (the proxy sends one
//     request at a time per connection), which refuses any replay, however
//     old, in constant memory;
//   - nonces seen within the freshness window are remembered (bounded,
//     pruned by time): the check DESIGN.md names, and a second line should a
//     client ever reuse ids.
//
// A frame older than the window is refused as Stale before it gets here,
// so forgetting nonces past the window loses nothing; when the cache is
// full the oldest nonce goes, and the id check still covers it. It is not
// safe for concurrent use (one per connection).
type replayGuard struct {
	lastID uint64
	seen   map[[wire.NonceSize]byte]struct{}
	queue  []replayEntry // FIFO ring
	head   int
	n      int
}

func newReplayGuard(handshakeID uint64) *replayGuard {
	return &replayGuard{lastID: handshakeID, seen: make(map[[wire.NonceSize]byte]struct{}, 64), queue: make([]replayEntry, 64)}
}

// accept reports whether the frame is new, and records it if so. nowMS is
// the enclave clock in unix milliseconds.
func (g *replayGuard) accept(id uint64, nonce [wire.NonceSize]byte, ts, nowMS int64) bool {
	horizon := nowMS - wire.MaxClockSkew.Milliseconds()
	for g.n > 0 && g.queue[g.head].ts < horizon {
		g.pop()
	}
	if id <= g.lastID {
		return false
	}
	if _, ok := g.seen[nonce]; ok {
		return false
	}
	if g.n == len(g.queue) {
		if len(g.queue) < maxReplayEntries {
			g.grow()
		} else {
			g.pop()
		}
	}
	g.lastID = id
	g.seen[nonce] = struct{}{}
	g.queue[(g.head+g.n)%len(g.queue)] = replayEntry{nonce: nonce, ts: ts}
	g.n++
	return true
}

func (g *replayGuard) pop() {
	delete(g.seen, g.queue[g.head].nonce)
	g.head = (g.head + 1) % len(g.queue)
	g.n--
}

// grow doubles the ring, keeping its order.
func (g *replayGuard) grow() {
	q := make([]replayEntry, min(2*len(g.queue), maxReplayEntries))
	for i := range g.n {
		q[i] = g.queue[(g.head+i)%len(g.queue)]
	}
	g.queue, g.head = q, 0
}
