package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// credEntry is one cached login. The file holds tokens: it is 0600 in a
// 0700 directory and never printed.
type credEntry struct {
	AccessToken  string    `json:"access_token"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	ExpiresAt    time.Time `json:"expires_at"`
	Email        string    `json:"email,omitempty"`
	Method       string    `json:"method"` // "password" or "api_key"
}

// credFile is credentials.json: logins keyed by API base URL.
type credFile struct {
	Version int                  `json:"version"`
	Entries map[string]credEntry `json:"entries"`
}

// credStore is the token cache in dir ($XDG_CONFIG_HOME/ocv).
type credStore struct{ dir string }

// credDir is $XDG_CONFIG_HOME/ocv, or ~/.config/ocv.
func credDir(getenv func(string) string) (string, error) {
	if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "ocv"), nil
	}
	home := getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", fmt.Errorf("finding the credentials directory: %w", err)
		}
	}
	return filepath.Join(home, ".config", "ocv"), nil
}

func (s credStore) path() string { return filepath.Join(s.dir, "credentials.json") }

// cacheKey normalises a base URL into the key of its entry.
func cacheKey(base string) string { return strings.TrimRight(base, "/") }

// load reads the file; a missing file is an empty cache. A file that others
// can read or write is refused, as ssh refuses a private key.
func (s credStore) load() (credFile, error) {
	f := credFile{Version: 1, Entries: map[string]credEntry{}}
	st, err := os.Stat(s.path())
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("reading credentials: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return f, fmt.Errorf("%w: %s has mode %04o (want 0600)", ErrInsecureCredentials, s.path(), st.Mode().Perm())
	}
	b, err := os.ReadFile(s.path())
	if err != nil {
		return f, fmt.Errorf("reading credentials: %w", err)
	}
	if err := json.Unmarshal(b, &f); err != nil {
		// The parse error could quote the file's content: keep it out.
		return f, fmt.Errorf("reading credentials: %s is not valid JSON", s.path())
	}
	if f.Entries == nil {
		f.Entries = map[string]credEntry{}
	}
	return f, nil
}

// save writes the file atomically with 0600 in a 0700 directory.
func (s credStore) save(f credFile) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("creating credentials directory: %w", err)
	}
	if err := os.Chmod(s.dir, 0o700); err != nil {
		return fmt.Errorf("securing credentials directory: %w", err)
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding credentials: %w", err)
	}
	tmp, err := os.CreateTemp(s.dir, ".credentials-*.json")
	if err != nil {
		return fmt.Errorf("writing credentials: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("writing credentials: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("writing credentials: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("writing credentials: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing credentials: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path()); err != nil {
		return fmt.Errorf("writing credentials: %w", err)
	}
	return nil
}

// get returns the entry of base.
func (s credStore) get(base string) (credEntry, bool, error) {
	f, err := s.load()
	if err != nil {
		return credEntry{}, false, err
	}
	e, ok := f.Entries[cacheKey(base)]
	return e, ok, nil
}

// update runs fn on the file under an exclusive lock and saves it when fn
// succeeds. The lock makes concurrent ocv processes refresh one at a time:
// refresh tokens are single-use, and a second use of the same one would
// revoke the whole session.
func (s credStore) update(fn func(f *credFile) error) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("creating credentials directory: %w", err)
	}
	unlock, err := lockFile(filepath.Join(s.dir, "credentials.lock"))
	if err != nil {
		return fmt.Errorf("locking credentials: %w", err)
	}
	defer unlock()
	f, err := s.load()
	if err != nil {
		return err
	}
	if err := fn(&f); err != nil {
		return err
	}
	return s.save(f)
}

// put stores the entry of base.
func (s credStore) put(base string, e credEntry) error {
	return s.update(func(f *credFile) error {
		f.Entries[cacheKey(base)] = e
		return nil
	})
}

// remove deletes the entry of base.
func (s credStore) remove(base string) error {
	return s.update(func(f *credFile) error {
		delete(f.Entries, cacheKey(base))
		return nil
	})
}
