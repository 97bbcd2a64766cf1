package auditlog

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/s3lite"
	"github.com/opencustody/ocv/internal/store"
)

// S3Sink writes every signed head as its own object in an S3-compatible
// bucket, <prefix>/<org>/<seq, 20 digits>.json, whose body is the
// auditchain.HeadRecord of a DirSink line. Each PUT carries
// If-None-Match: * so a head already written is never replaced; object
// lock or a bucket policy denying overwrite and delete to the proxy's key
// is what makes the bucket append-only (docs/threat-model.md).
type S3Sink struct {
	c              *s3lite.Client
	bucket, prefix string
}

// NewS3Sink writes to the bucket and prefix of rawURL (s3://bucket/prefix).
func NewS3Sink(c *s3lite.Client, rawURL string) (*S3Sink, error) {
	bucket, prefix, err := s3lite.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("audit heads URL: %w", err)
	}
	return &S3Sink{c: c, bucket: bucket, prefix: prefix}, nil
}

// S3HeadKey is the object key of org's head at seq under prefix.
func S3HeadKey(prefix, org string, seq int64) (string, error) {
	if _, err := HeadFile("", org); err != nil {
		return "", err
	}
	if seq <= 0 {
		return "", fmt.Errorf("head seq %d is not positive", seq)
	}
	key := fmt.Sprintf("%s/%020d.json", org, seq)
	if prefix != "" {
		key = prefix + "/" + key
	}
	return key, nil
}

// EncodeHead is h as the JSON of an auditchain.HeadRecord.
func EncodeHead(h store.SignedHead) ([]byte, error) {
	b, err := json.Marshal(auditchain.HeadRecord{OrgID: h.OrgID, Seq: h.Seq, EventID: h.EventID,
		Hash: hex.EncodeToString(h.Hash), Signature: base64.RawURLEncoding.EncodeToString(h.Signature),
		KID: h.KID, SignedAt: h.SignedAt})
	if err != nil {
		return nil, fmt.Errorf("encoding head: %w", err)
	}
	return b, nil
}

// AppendHead puts h's object unless it exists. An existing object is
// accepted only when it holds the same bytes or the same head (org, seq,
// event and hash) signed again: the enclave re-signs the head it last
// signed when the proxy lost its answer, with a new time and signature.
// Anything else there is an error, and is never overwritten.
func (s *S3Sink) AppendHead(ctx context.Context, h store.SignedHead) error {
	key, err := S3HeadKey(s.prefix, h.OrgID, h.Seq)
	if err != nil {
		return err
	}
	body, err := EncodeHead(h)
	if err != nil {
		return err
	}
	err = s.c.Put(ctx, s.bucket, key, body, "application/json", true)
	if !errors.Is(err, s3lite.ErrPreconditionFailed) {
		if err != nil {
			return fmt.Errorf("writing audit head to s3://%s/%s: %w", s.bucket, key, err)
		}
		return nil
	}
	have, err := s.c.Get(ctx, s.bucket, key, 64<<10)
	if err != nil {
		return fmt.Errorf("reading existing audit head s3://%s/%s: %w", s.bucket, key, err)
	}
	var rec auditchain.HeadRecord
	if !bytes.Equal(have, body) && (json.Unmarshal(have, &rec) != nil || rec.OrgID != h.OrgID || rec.Seq != h.Seq ||
		rec.EventID != h.EventID || rec.Hash != hex.EncodeToString(h.Hash)) {
		return fmt.Errorf("audit head s3://%s/%s already exists with different content", s.bucket, key)
	}
	return nil
}

// Sinks writes every head to each sink in order and stops at the first
// failure (the sealer then retries the head, and the sinks accept a head
// they already hold).
type Sinks []HeadSink

// AppendHead appends h to every sink.
func (ss Sinks) AppendHead(ctx context.Context, h store.SignedHead) error {
	for _, s := range ss {
		if err := s.AppendHead(ctx, h); err != nil {
			return err
		}
	}
	return nil
}
