// Command vulndb builds an offline Go vulnerability database for
// `govulncheck -db file://DIR`, for machines that reach the Go module proxy
// but not vuln.go.dev. The proxy serves golang.org/x/vulndb, whose module
// holds every OSV record under data/osv/; this command downloads one
// snapshot of it (go mod download) and writes the v1 layout that
// https://go.dev/security/vuln/database describes:
//
//	index/db.json       {"modified": ...}
//	index/modules.json  [{"path": ..., "vulns": [{"id": ..., "modified": ...}]}]
//	index/vulns.json    [{"id": ..., "modified": ..., "aliases": [...]}]
//	ID/<id>.json        the OSV record, byte for byte
//
// Usage (make lint runs it):
//
//	go run ./scripts/vulndb -version v0.0.0-20261105234957-e22db6528018 -out .ocv/vulndb
//
// -version also takes "latest". When out already holds the snapshot the
// version resolves to, nothing is rewritten.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// module is the Go module that carries the database's OSV records.
const module = "golang.org/x/vulndb"

// stampFile names, inside out, the snapshot out was built from.
const stampFile = "SOURCE"

func main() {
	version := flag.String("version", "", "golang.org/x/vulndb version (or latest)")
	out := flag.String("out", "", "directory to write the database to")
	flag.Parse()
	if *version == "" || *out == "" || flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*version, *out); err != nil {
		fmt.Fprintln(os.Stderr, "vulndb:", err)
		os.Exit(1)
	}
}

func run(version, out string) error {
	snap, err := download(version)
	if err != nil {
		return err
	}
	source := module + "@" + snap.Version
	if b, err := os.ReadFile(filepath.Join(out, stampFile)); err == nil && strings.TrimSpace(string(b)) == source {
		fmt.Printf("vulndb: %s is up to date (%s)\n", out, source)
		return nil
	}
	// 0755 as scripts/lib.sh makes .ocv: the PostgreSQL user must reach into it.
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(out), err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(out), filepath.Base(out)+".tmp-")
	if err != nil {
		return fmt.Errorf("creating build directory: %w", err)
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	n, err := build(filepath.Join(snap.Dir, "data", "osv"), tmp, snap.Time)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, stampFile), []byte(source+"\n"), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", stampFile, err)
	}
	// MkdirTemp made tmp 0700; the database is public data.
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("opening build directory: %w", err)
	}
	if err := os.RemoveAll(out); err != nil {
		return fmt.Errorf("removing the old database: %w", err)
	}
	if err := os.Rename(tmp, out); err != nil {
		return fmt.Errorf("installing the database: %w", err)
	}
	fmt.Printf("vulndb: wrote %d records from %s to %s\n", n, source, out)
	return nil
}

// snapshot is one downloaded version of the vulndb module.
type snapshot struct {
	Version string
	Dir     string // the extracted module in the module cache
	Time    string // the commit time (RFC 3339)
}

// download fetches module@version through the Go module proxy and returns
// where it is. It runs outside this module so that go.mod and go.sum stay
// untouched.
func download(version string) (snapshot, error) {
	cmd := exec.Command("go", "mod", "download", "-json", module+"@"+version)
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	var res struct {
		Version, Dir, Info, Error string
	}
	if jerr := json.Unmarshal(stdout, &res); jerr != nil || res.Error != "" || err != nil {
		return snapshot{}, fmt.Errorf("downloading %s@%s: %s", module, version,
			strings.TrimSpace(strings.Join([]string{res.Error, stderr.String(), errText(err)}, " ")))
	}
	info, err := os.ReadFile(res.Info)
	if err != nil {
		return snapshot{}, fmt.Errorf("reading %s@%s info: %w", module, res.Version, err)
	}
	var meta struct{ Time string }
	if err := json.Unmarshal(info, &meta); err != nil || meta.Time == "" {
		return snapshot{}, fmt.Errorf("reading %s@%s info: no commit time", module, res.Version)
	}
	return snapshot{Version: res.Version, Dir: res.Dir, Time: meta.Time}, nil
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.String()
	}
	return err.Error()
}
