package auditlog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/opencustody/ocv/internal/store"
)

// DirSink appends every signed head to a file per organization in a
// directory, <dir>/<org>.jsonl, one auditchain.HeadRecord per line. It
// only ever opens files to append; keeping them out of a compromised
// proxy's reach (a separate volume, a log shipper, an append-only
// attribute) is the operator's part (docs/threat-model.d/audit.md).
type DirSink struct {
	dir string
	mu  sync.Mutex
}

// NewDirSink makes dir (0700) when missing.
func NewDirSink(dir string) (*DirSink, error) {
	if dir == "" {
		return nil, fmt.Errorf("audit heads directory is empty")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("making audit heads directory: %w", err)
	}
	return &DirSink{dir: dir}, nil
}

// HeadFile is the file of org's heads under dir; org must be an id of
// letters, digits and dashes (organization ids are UUIDs).
func HeadFile(dir, org string) (string, error) {
	if org == "" || len(org) > 64 || strings.ContainsFunc(org, func(r rune) bool {
		return !(r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		return "", fmt.Errorf("organization id %q cannot name a head file", org)
	}
	return filepath.Join(dir, org+".jsonl"), nil
}

// AppendHead writes h as one line and syncs it to disk.
func (d *DirSink) AppendHead(_ context.Context, h store.SignedHead) error {
	path, err := HeadFile(d.dir, h.OrgID)
	if err != nil {
		return err
	}
	line, err := EncodeHead(h)
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("opening head file: %w", err)
	}
	_, err = f.Write(append(line, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("appending head to %s: %w", path, err)
	}
	return nil
}
