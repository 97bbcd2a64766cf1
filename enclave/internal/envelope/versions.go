package envelope

import (
	"sync"
	"time"
)

// latestTTL bounds how long the latest KEK version of a vault is trusted
// from memory; another enclave sharing the HSM may have rotated it. Sealing
// under a version one rotation old is still correct, only not the newest.
const latestTTL = time.Minute

// maxLatestEntries bounds the version cache; when full it starts over.
const maxLatestEntries = 65536

type latestEntry struct {
	version uint32
	at      time.Time
}

// latestVersions remembers the newest KEK version per KEK id. It is safe for
// concurrent use.
type latestVersions struct {
	mu  sync.Mutex
	now func() time.Time
	m   map[string]latestEntry
}

func newLatestVersions(now func() time.Time) *latestVersions {
	return &latestVersions{now: now, m: make(map[string]latestEntry)}
}

func (l *latestVersions) get(id string) (uint32, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.m[id]
	if !ok || l.now().Sub(e.at) > latestTTL {
		return 0, false
	}
	return e.version, true
}

// set records v unless a newer version is already known.
func (l *latestVersions) set(id string, v uint32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.m[id]; ok && e.version > v && l.now().Sub(e.at) <= latestTTL {
		return
	}
	if len(l.m) >= maxLatestEntries {
		clear(l.m)
	}
	l.m[id] = latestEntry{version: v, at: l.now()}
}

// forget drops what is known of id (a KEK version of it is gone).
func (l *latestVersions) forget(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.m, id)
}
