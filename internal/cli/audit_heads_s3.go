package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/s3lite"
	"github.com/opencustody/ocv/internal/store"
)

// maxHeadObject bounds one head object (a HeadRecord is a few hundred bytes).
const maxHeadObject = 64 << 10

// s3Heads is a bucket of head objects, <prefix>/<org>/<seq, 20 digits>.json
// (proxy/auditlog.S3Sink). The listing is read once.
type s3Heads struct {
	c              *s3lite.Client
	bucket, prefix string
	keys           map[string][]string // org -> its head keys, in seq order
}

func newS3Heads(rawURL string) (*s3Heads, error) {
	bucket, prefix, err := s3lite.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%w: --heads: %v", ErrUsage, err)
	}
	cfg, err := s3lite.FromEnv(os.LookupEnv, os.ReadFile)
	if err != nil {
		return nil, err
	}
	c, err := s3lite.New(cfg)
	if err != nil {
		return nil, err
	}
	return &s3Heads{c: c, bucket: bucket, prefix: prefix}, nil
}

// list reads every head key under the prefix. A key that is not a head
// object is an error: nothing else belongs there.
func (s *s3Heads) list(ctx context.Context) error {
	if s.keys != nil {
		return nil
	}
	base := ""
	if s.prefix != "" {
		base = s.prefix + "/"
	}
	keys := map[string][]string{}
	err := s.c.List(ctx, s.bucket, base, func(key string) error {
		org, name, ok := strings.Cut(strings.TrimPrefix(key, base), "/")
		digits, isJSON := strings.CutSuffix(name, ".json")
		if !ok || !isJSON || len(digits) != 20 || strings.Trim(digits, "0123456789") != "" ||
			org == "" || strings.ContainsAny(org, `/\.`) {
			return fmt.Errorf("s3://%s/%s is not an audit head object", s.bucket, key)
		}
		keys[org] = append(keys[org], key)
		return nil
	})
	if err != nil {
		return fmt.Errorf("listing external heads: %w", err)
	}
	for _, k := range keys {
		slices.Sort(k)
	}
	s.keys = keys
	return nil
}

func (s *s3Heads) withOrgs(ctx context.Context, orgs []string) ([]string, error) {
	if err := s.list(ctx); err != nil {
		return nil, err
	}
	for org := range s.keys {
		if !slices.Contains(orgs, org) {
			orgs = append(orgs, org)
		}
	}
	slices.Sort(orgs)
	return orgs, nil
}

func (s *s3Heads) heads(ctx context.Context, org string) ([]store.SignedHead, error) {
	if err := s.list(ctx); err != nil {
		return nil, err
	}
	keys := s.keys[org]
	if len(keys) == 0 {
		return nil, nil
	}
	recs := make([]auditchain.HeadRecord, 0, len(keys))
	for _, key := range keys {
		b, err := s.c.Get(ctx, s.bucket, key, maxHeadObject)
		if err != nil {
			return nil, fmt.Errorf("external heads of org %s: %w", org, err)
		}
		var r auditchain.HeadRecord
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("external heads of org %s: s3://%s/%s: %w", org, s.bucket, key, err)
		}
		seq, _ := strconv.ParseInt(strings.TrimSuffix(key[strings.LastIndexByte(key, '/')+1:], ".json"), 10, 64)
		if r.Seq != seq {
			return nil, fmt.Errorf("external heads of org %s: s3://%s/%s holds the head of seq %d", org, s.bucket, key, r.Seq)
		}
		recs = append(recs, r)
	}
	return signedHeads(org, recs)
}
