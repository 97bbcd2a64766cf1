package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/s3lite/s3fake"
)

func headJSON(t *testing.T, org string, seq int64, hash string) []byte {
	b, err := json.Marshal(auditchain.HeadRecord{OrgID: org, Seq: seq, EventID: seq, Hash: hash,
		Signature: "AQID", KID: "k", SignedAt: time.Unix(1, 0).UTC()})
	require.NoError(t, err)
	return b
}

func TestS3HeadsSource(t *testing.T) {
	const orgA, orgB = "aaaa-1", "bbbb-2"
	hash := strings.Repeat("ab", 32)
	fake := s3fake.New("AKIDTEST")
	defer fake.Close()
	t.Setenv("OCV_AUDIT_HEADS_S3_ENDPOINT", fake.URL)
	t.Setenv("OCV_AUDIT_HEADS_S3_ACCESS_KEY_ID", "AKIDTEST")
	t.Setenv("OCV_AUDIT_HEADS_S3_SECRET_ACCESS_KEY", "secret")
	key := func(org string, seq int64) string { return fmt.Sprintf("heads/p/%s/%020d.json", org, seq) }
	for seq := int64(1); seq <= 3; seq++ {
		fake.Put(key(orgA, seq), headJSON(t, orgA, seq, hash))
	}
	fake.Put(key(orgB, 2), headJSON(t, orgB, 2, hash))
	fake.Put("heads/other/x", []byte("outside the prefix"))
	ctx := context.Background()

	src, err := openHeads("s3://heads/p")
	require.NoError(t, err)
	orgs, err := src.withOrgs(ctx, []string{"cccc-3"})
	require.NoError(t, err)
	require.Equal(t, []string{orgA, orgB, "cccc-3"}, orgs)
	heads, err := src.heads(ctx, orgA)
	require.NoError(t, err)
	require.Len(t, heads, 3)
	require.Equal(t, int64(3), heads[2].Seq)
	none, err := src.heads(ctx, "cccc-3")
	require.NoError(t, err)
	require.Nil(t, none)

	for name, tc := range map[string]struct{ key, body, want string }{
		"seq in the key and the body differ": {key(orgB, 3), string(headJSON(t, orgB, 4, hash)), "holds the head of seq 4"},
		"head of another org":                {key(orgB, 3), string(headJSON(t, orgA, 3, hash)), "belongs to org"},
		"malformed hash":                     {key(orgB, 3), string(headJSON(t, orgB, 3, "zz")), "malformed"},
		"not a head object":                  {"heads/p/" + orgB + "/notes.txt", "x", "not an audit head object"},
	} {
		t.Run(name, func(t *testing.T) {
			f := s3fake.New("AKIDTEST")
			defer f.Close()
			t.Setenv("OCV_AUDIT_HEADS_S3_ENDPOINT", f.URL)
			f.Put(tc.key, []byte(tc.body))
			src, err := openHeads("s3://heads/p")
			require.NoError(t, err)
			_, err = src.heads(ctx, orgB)
			require.ErrorContains(t, err, tc.want)
		})
	}

	t.Setenv("OCV_AUDIT_HEADS_S3_ENDPOINT", "")
	_, err = openHeads("s3://heads/p")
	require.ErrorContains(t, err, "OCV_AUDIT_HEADS_S3_ENDPOINT is required")
	t.Setenv("OCV_AUDIT_HEADS_S3_ENDPOINT", "http://s3.example.com")
	_, err = openHeads("s3://heads/p")
	require.ErrorContains(t, err, "loopback")
}
