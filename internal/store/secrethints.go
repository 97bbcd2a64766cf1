package store

import "sync"

// maxSecretHints bounds the version hints a Store keeps; when full it
// starts over.
const maxSecretHints = 16384

// secretHint is what a Store last saw of a secret: its id and version.
type secretHint struct {
	id      string
	version uint32
}

type hintKey struct{ org, vault, path string }

// secretHints remembers, per secret this process wrote, the id and version
// it wrote, so that the next write can seal for the version after it
// without reading the row first. A hint is only a guess: the write
// statement advances the version only if it is still the one guessed, and
// answers the current one when it is not (another replica wrote, the secret
// was deleted). Its zero value is ready; it is safe for concurrent use.
type secretHints struct {
	mu sync.Mutex
	m  map[hintKey]secretHint
}

func (h *secretHints) get(org, vault, path string) (secretHint, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	v, ok := h.m[hintKey{org, vault, path}]
	return v, ok
}

func (h *secretHints) set(org, vault, path string, v secretHint) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil || len(h.m) >= maxSecretHints {
		h.m = make(map[hintKey]secretHint)
	}
	h.m[hintKey{org, vault, path}] = v
}

func (h *secretHints) forget(org, vault, path string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.m, hintKey{org, vault, path})
}
