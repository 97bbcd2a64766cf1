package cli

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
)

// headFileExt names the proxy's head files, <dir>/<org>.jsonl
// (proxy/auditlog.DirSink).
const headFileExt = ".jsonl"

// withHeadOrgs adds to orgs every organization that has a head file in dir.
func withHeadOrgs(orgs []string, dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading audit heads directory: %w", err)
	}
	for _, e := range entries {
		if org, ok := strings.CutSuffix(e.Name(), headFileExt); ok && !e.IsDir() && !slices.Contains(orgs, org) {
			orgs = append(orgs, org)
		}
	}
	slices.Sort(orgs)
	return orgs, nil
}

// headsSource is where the proxy's external heads are: a directory
// (dirHeads) or an S3-compatible bucket (s3Heads).
type headsSource interface {
	// withOrgs adds to orgs every organization that has heads there.
	withOrgs(ctx context.Context, orgs []string) ([]string, error)
	// heads are org's external heads (nil when it has none).
	heads(ctx context.Context, org string) ([]store.SignedHead, error)
}

// openHeads is the source named by --heads: s3://bucket/prefix (with the
// OCV_AUDIT_HEADS_S3_* environment) or a directory.
func openHeads(arg string) (headsSource, error) {
	if strings.HasPrefix(arg, "s3://") {
		return newS3Heads(arg)
	}
	return dirHeads(arg), nil
}

// dirHeads is a directory of <org>.jsonl files (proxy/auditlog.DirSink).
type dirHeads string

func (d dirHeads) withOrgs(_ context.Context, orgs []string) ([]string, error) {
	return withHeadOrgs(orgs, string(d))
}

func (d dirHeads) heads(_ context.Context, org string) ([]store.SignedHead, error) {
	return readHeads(string(d), org)
}

// readHeads reads org's external heads (nil when it has no file).
func readHeads(dir, org string) ([]store.SignedHead, error) {
	if strings.ContainsAny(org, `/\.`) {
		return nil, fmt.Errorf("organization id %q cannot name a head file", org)
	}
	f, err := os.Open(filepath.Join(dir, org+headFileExt))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("opening external heads of org %s: %w", org, err)
	}
	defer f.Close()
	recs, err := auditchain.ReadHeads(f)
	if err != nil {
		return nil, fmt.Errorf("external heads of org %s: %w", org, err)
	}
	return signedHeads(org, recs)
}

// signedHeads checks and decodes org's head records. Heads of the same
// seq must agree: a retried signature may be written twice.
func signedHeads(org string, recs []auditchain.HeadRecord) ([]store.SignedHead, error) {
	out := make([]store.SignedHead, 0, len(recs))
	bySeq := map[int64]string{}
	for i, r := range recs {
		hash, errH := hex.DecodeString(r.Hash)
		sig, errS := base64.RawURLEncoding.DecodeString(r.Signature)
		switch {
		case r.OrgID != org:
			return nil, fmt.Errorf("external heads of org %s: head %d belongs to org %s", org, i+1, r.OrgID)
		case errH != nil || len(hash) != 32 || errS != nil || r.Seq <= 0:
			return nil, fmt.Errorf("external heads of org %s: head %d is malformed", org, i+1)
		}
		if prev, ok := bySeq[r.Seq]; ok && prev != r.Hash {
			return nil, fmt.Errorf("external heads of org %s: two heads at seq %d disagree", org, r.Seq)
		}
		bySeq[r.Seq] = r.Hash
		out = append(out, store.SignedHead{ChainHead: store.ChainHead{OrgID: org, Seq: r.Seq, EventID: r.EventID, Hash: hash},
			Signature: sig, KID: r.KID, SignedAt: r.SignedAt})
	}
	return out, nil
}
