package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// idPattern is the form of a Go vulnerability id. An id names a file, so
// nothing else is accepted.
var idPattern = regexp.MustCompile(`^GO-[0-9]{4}-[0-9]+$`)

// record is the part of an OSV record the indexes need.
type record struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
	Aliases  []string  `json:"aliases,omitempty"`
	Affected []struct {
		Package struct {
			Name string `json:"name"`
		} `json:"package"`
	} `json:"affected"`
}

// moduleVulns is one entry of index/modules.json. It leaves out the
// optional "fixed" version: without it govulncheck reads every record of a
// module and matches the module's version against the record's own ranges,
// so an omission costs a few file reads and can never hide a finding.
type moduleVulns struct {
	Path  string      `json:"path"`
	Vulns []vulnEntry `json:"vulns"`
}

// vulnEntry is one entry of index/vulns.json, and (without aliases) of a
// module's list in index/modules.json.
type vulnEntry struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
	Aliases  []string  `json:"aliases,omitempty"`
}

// build reads the OSV records in osvDir and writes the database into out.
// Records that carry no modification time (the snapshot's files leave it to
// the generator, which takes it from the repository's history) get the
// snapshot's commit time. It returns the number of records.
func build(osvDir, out, snapshotTime string) (int, error) {
	stamp, err := time.Parse(time.RFC3339, snapshotTime)
	if err != nil {
		return 0, fmt.Errorf("parsing the snapshot time: %w", err)
	}
	files, err := filepath.Glob(filepath.Join(osvDir, "*.json"))
	if err != nil || len(files) == 0 {
		return 0, fmt.Errorf("no OSV records in %s", osvDir)
	}
	for _, d := range []string{"ID", "index"} {
		if err := os.MkdirAll(filepath.Join(out, d), 0o755); err != nil {
			return 0, fmt.Errorf("creating %s: %w", d, err)
		}
	}
	var dbModified time.Time
	modules := map[string]*moduleVulns{}
	var vulns []vulnEntry
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return 0, fmt.Errorf("reading OSV record: %w", err)
		}
		var r record
		if err := json.Unmarshal(raw, &r); err != nil {
			return 0, fmt.Errorf("parsing %s: %w", filepath.Base(f), err)
		}
		if !idPattern.MatchString(r.ID) || filepath.Base(f) != r.ID+".json" {
			return 0, fmt.Errorf("%s: the id %q does not name the file", filepath.Base(f), r.ID)
		}
		if r.Modified.IsZero() {
			r.Modified = stamp
		}
		if r.Modified.After(dbModified) {
			dbModified = r.Modified
		}
		if err := os.WriteFile(filepath.Join(out, "ID", r.ID+".json"), raw, 0o644); err != nil {
			return 0, fmt.Errorf("writing %s: %w", r.ID, err)
		}
		vulns = append(vulns, vulnEntry{ID: r.ID, Modified: r.Modified, Aliases: r.Aliases})
		for _, a := range r.Affected {
			path := a.Package.Name
			if path == "" {
				continue
			}
			m := modules[path]
			if m == nil {
				m = &moduleVulns{Path: path}
				modules[path] = m
			}
			// A record lists a module once per affected package set; index it once.
			if !slices.ContainsFunc(m.Vulns, func(v vulnEntry) bool { return v.ID == r.ID }) {
				m.Vulns = append(m.Vulns, vulnEntry{ID: r.ID, Modified: r.Modified})
			}
		}
	}
	index := make([]*moduleVulns, 0, len(modules))
	for _, m := range modules {
		slices.SortFunc(m.Vulns, func(a, b vulnEntry) int { return strings.Compare(a.ID, b.ID) })
		index = append(index, m)
	}
	slices.SortFunc(index, func(a, b *moduleVulns) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(vulns, func(a, b vulnEntry) int { return strings.Compare(a.ID, b.ID) })
	for name, v := range map[string]any{
		"db.json": struct {
			Modified time.Time `json:"modified"`
		}{dbModified},
		"modules.json": index,
		"vulns.json":   vulns,
	} {
		b, err := json.Marshal(v)
		if err != nil {
			return 0, fmt.Errorf("encoding %s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(out, "index", name), b, 0o644); err != nil {
			return 0, fmt.Errorf("writing %s: %w", name, err)
		}
	}
	return len(files), nil
}
