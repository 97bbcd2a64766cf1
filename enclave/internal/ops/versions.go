package ops

import "sync"

// maxTrackedVaults bounds the policy-set versions remembered. When it is
// full, an arbitrary vault is forgotten: for that vault the enclave then
// accepts any validly MAC'd set again, exactly as after a restart
// (docs/threat-model.md, "Policy-set rollback").
const maxTrackedVaults = 1 << 20

// vaultKey names one vault's policy set.
type vaultKey struct{ org, vault string }

// setVersions remembers, per vault, the highest policy-set version the
// enclave has sealed or seen in a request, so that an older set (validly
// MAC'd, but superseded) is refused: rollback protection for as long as the
// process lives. Safe for concurrent use.
type setVersions struct {
	mu  sync.Mutex
	max int
	m   map[vaultKey]uint64
}

func newSetVersions(max int) *setVersions {
	return &setVersions{max: max, m: make(map[vaultKey]uint64)}
}

// observe is for sets presented with a request: it reports whether v is at
// least the highest version seen for k, and records v when it is higher.
func (s *setVersions) observe(k vaultKey, v uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	high, ok := s.m[k]
	if ok && v < high {
		return false
	}
	s.record(k, v, ok)
	return true
}

// newer reports whether v is above the highest version seen for k, without
// recording it.
func (s *setVersions) newer(k vaultKey, v uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	high, ok := s.m[k]
	return !ok || v > high
}

// advance is for SealPolicySet: it records v and reports true only when v
// is above the highest version seen for k (a replay or a lost race between
// two changes gets false).
func (s *setVersions) advance(k vaultKey, v uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	high, ok := s.m[k]
	if ok && v <= high {
		return false
	}
	s.record(k, v, ok)
	return true
}

// record stores v for k; known says whether k already has an entry. The
// caller holds mu.
func (s *setVersions) record(k vaultKey, v uint64, known bool) {
	if !known && len(s.m) >= s.max {
		for old := range s.m { // map order: an arbitrary vault
			delete(s.m, old)
			break
		}
	}
	s.m[k] = v
}
