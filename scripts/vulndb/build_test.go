package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

const snapshotTime = "2026-11-05T23:49:57Z"

// osvRecord is a minimal OSV record affecting the given modules.
func osvRecord(id, modified string, modules ...string) string {
	affected := ""
	for i, m := range modules {
		if i > 0 {
			affected += ","
		}
		affected += `{"package":{"name":"` + m + `","ecosystem":"Go"},"ranges":[{"type":"SEMVER","events":[{"introduced":"0"},{"fixed":"1.2.3"}]}]}`
	}
	return `{"schema_version":"1.3.1","id":"` + id + `","modified":"` + modified + `","aliases":["CVE-2026-1"],"affected":[` + affected + `]}`
}

func writeRecords(t testing.TB, recs map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range recs {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	return dir
}

func TestBuild(t *testing.T) {
	rec1 := osvRecord("GO-2026-0002", "0001-01-01T00:00:00Z", "example.com/b", "example.com/a", "example.com/b")
	rec2 := osvRecord("GO-2026-0001", "2026-12-01T00:00:00Z", "example.com/b")
	src := writeRecords(t, map[string]string{"GO-2026-0002.json": rec1, "GO-2026-0001.json": rec2})
	out := t.TempDir()
	n, err := build(src, out, snapshotTime)
	require.NoError(t, err)
	require.Equal(t, 2, n)

	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(out, p))
		require.NoError(t, err)
		return string(b)
	}
	require.Equal(t, rec1, read("ID/GO-2026-0002.json"), "records are copied byte for byte")
	require.Equal(t, rec2, read("ID/GO-2026-0001.json"))
	require.JSONEq(t, `{"modified":"2026-12-01T00:00:00Z"}`, read("index/db.json"))
	// Sorted by path and id; a module listed twice by one record is indexed
	// once; a record without a time gets the snapshot's.
	require.JSONEq(t, `[
		{"path":"example.com/a","vulns":[{"id":"GO-2026-0002","modified":"2026-11-05T23:49:57Z"}]},
		{"path":"example.com/b","vulns":[{"id":"GO-2026-0001","modified":"2026-12-01T00:00:00Z"},
			{"id":"GO-2026-0002","modified":"2026-11-05T23:49:57Z"}]}]`, read("index/modules.json"))
	var vulns []map[string]any
	require.NoError(t, json.Unmarshal([]byte(read("index/vulns.json")), &vulns))
	require.Len(t, vulns, 2)
	require.Equal(t, "GO-2026-0001", vulns[0]["id"])
	require.Equal(t, []any{"CVE-2026-1"}, vulns[1]["aliases"])
}

func TestBuildRefuses(t *testing.T) {
	tests := map[string]map[string]string{
		"fail no records": {},
		// An id names the file it is written to: nothing else may pass.
		"fail id with a path":       {"GO-2026-0001.json": osvRecord("../GO-2026-0001", "2026-01-01T00:00:00Z")},
		"fail id not the file name": {"GO-2026-0001.json": osvRecord("GO-2026-0009", "2026-01-01T00:00:00Z")},
		"fail not JSON":             {"GO-2026-0001.json": `{"id":`},
	}
	for name, recs := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := build(writeRecords(t, recs), t.TempDir(), snapshotTime)
			require.Error(t, err)
		})
	}
}
