package auditlog

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/s3lite"
	"github.com/opencustody/ocv/internal/s3lite/s3fake"
	"github.com/opencustody/ocv/internal/store"
)

const s3Org = "6f1c2a3b-0000-4000-8000-000000000001"

func testHead(seq int64, hashByte byte, at time.Time) store.SignedHead {
	hash := make([]byte, 32)
	hash[0] = hashByte
	return store.SignedHead{ChainHead: store.ChainHead{OrgID: s3Org, Seq: seq, EventID: seq * 10, Hash: hash},
		Signature: []byte{1, 2, 3}, KID: "k1", SignedAt: at.UTC()}
}

func TestS3SinkWritesEachHeadOnce(t *testing.T) {
	fake := s3fake.New("AKIDTEST")
	defer fake.Close()
	c, err := s3lite.New(s3lite.Config{Endpoint: fake.URL, AccessKeyID: "AKIDTEST", SecretAccessKey: "secret"})
	require.NoError(t, err)
	sink, err := NewS3Sink(c, "s3://heads/ocv/")
	require.NoError(t, err)
	ctx := context.Background()
	now := time.Now()

	h := testHead(7, 0xaa, now)
	require.NoError(t, sink.AppendHead(ctx, h))
	key := "heads/ocv/" + s3Org + "/00000000000000000007.json"
	var rec auditchain.HeadRecord
	require.NoError(t, json.Unmarshal(fake.Object(key), &rec))
	require.Equal(t, int64(7), rec.Seq)
	require.Equal(t, s3Org, rec.OrgID)

	for _, tc := range []struct {
		name string
		head store.SignedHead
		ok   bool
	}{
		{"the same bytes again", h, true},
		{"the same head signed again later", testHead(7, 0xaa, now.Add(time.Minute)), true},
		{"another head at the same seq", testHead(7, 0xbb, now), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := string(fake.Object(key))
			err := sink.AppendHead(ctx, tc.head)
			require.Equal(t, tc.ok, err == nil, "%v", err)
			require.Equal(t, before, string(fake.Object(key)), "never overwritten")
		})
	}

	fake.Put(key, []byte("not json"))
	require.ErrorContains(t, sink.AppendHead(ctx, h), "already exists with different content")

	// A store that ignores If-None-Match still gets each head written.
	fake.IgnoreIfNoneMatch()
	require.NoError(t, sink.AppendHead(ctx, testHead(8, 0xcc, now)))
	require.NotNil(t, fake.Object("heads/ocv/"+s3Org+"/00000000000000000008.json"))
}

func TestS3HeadKey(t *testing.T) {
	k, err := S3HeadKey("", s3Org, 1)
	require.NoError(t, err)
	require.Equal(t, s3Org+"/00000000000000000001.json", k)
	_, err = S3HeadKey("p", "../x", 1)
	require.Error(t, err)
	_, err = S3HeadKey("p", s3Org, 0)
	require.Error(t, err)
	_, err = NewS3Sink(nil, "https://bucket/x")
	require.Error(t, err)
}

type failSink struct{ n *int }

func (f failSink) AppendHead(context.Context, store.SignedHead) error {
	*f.n++
	return context.Canceled
}

func TestSinksStopAtFirstFailure(t *testing.T) {
	var a, b int
	err := Sinks{failSink{&a}, failSink{&b}}.AppendHead(context.Background(), testHead(1, 1, time.Now()))
	require.Error(t, err)
	require.Equal(t, [2]int{1, 0}, [2]int{a, b})
}
