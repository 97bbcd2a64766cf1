package test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/s3lite"
	"github.com/opencustody/ocv/test/stack"
)

// s3rver's fixed credentials.
const s3rverKey = "S3RVER"

// startS3rver runs the npm package s3rver (test/conformance) on a free
// loopback port with an empty bucket and returns its endpoint. s3rver
// checks the access key id but neither SigV4 signatures nor If-None-Match
// (internal/s3lite's unit tests cover both against the AWS example and a
// fake endpoint).
func startS3rver(t *testing.T, bucket string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	require.NoError(t, err, "node is required (make test installs it and runs npm ci in test/conformance)")
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "conformance", "node_modules", "s3rver", "bin", "s3rver.js")
	_, err = os.Stat(script)
	require.NoError(t, err, "test/conformance/node_modules/s3rver is missing: run npm ci --prefix test/conformance")

	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	var logs bytes.Buffer
	cmd := exec.Command(node, script, "-d", t.TempDir(), "-a", "127.0.0.1", "-p", strconv.Itoa(port),
		"--no-vhost-buckets", "--configure-bucket", bucket)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	endpoint := "http://127.0.0.1:" + strconv.Itoa(port)
	c := s3rverClient(t, endpoint)
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := c.List(context.Background(), bucket, "", func(string) error { return nil })
		if err == nil {
			return endpoint
		}
		require.True(t, time.Now().Before(deadline), "s3rver did not start: %v", err)
		time.Sleep(100 * time.Millisecond)
	}
}

func s3rverClient(t *testing.T, endpoint string) *s3lite.Client {
	c, err := s3lite.New(s3lite.Config{Endpoint: endpoint, AccessKeyID: s3rverKey, SecretAccessKey: s3rverKey})
	require.NoError(t, err)
	return c
}

// TestAuditHeadsInS3Bucket: with audit_heads_url the proxy writes every
// signed head as an object in an S3-compatible bucket (s3rver), and
// `ocv audit verify --heads s3://...` reads them: ok while the database
// holds the whole chain, FAIL once its newest events and heads are deleted.
func TestAuditHeadsInS3Bucket(t *testing.T) {
	const bucket = "ocv-heads"
	endpoint := startS3rver(t, bucket)
	s3env := []string{"OCV_AUDIT_HEADS_S3_ENDPOINT=" + endpoint, "OCV_AUDIT_HEADS_S3_ACCESS_KEY_ID=" + s3rverKey,
		"OCV_AUDIT_HEADS_S3_SECRET_ACCESS_KEY=" + s3rverKey}
	s := stack.Start(t, stack.WithProxyEnv(append(s3env, "OCV_AUDIT_HEADS_URL=s3://"+bucket+"/audit")...))
	me := s.SignUp("s3heads@example.com")
	vault := s.CreateVault(me.Token, "v")
	for range 4 {
		r := s.Do("PUT", "/v1/vaults/"+vault+"/secrets/k", me.Token, map[string]any{"type": "api_key", "value": "e2e-s3"})
		require.Less(t, r.Status, 300, string(r.Body))
		require.Equal(t, http.StatusOK, s.Do("GET", "/v1/vaults/"+vault+"/secrets/k", me.Token, nil).Status)
	}
	head := waitSignedHead(t, s, me.OrgID)
	require.GreaterOrEqual(t, head, int64(8))
	// The sink is written before the database: the newest head is there.
	body, err := s3rverClient(t, endpoint).Get(context.Background(), bucket,
		fmt.Sprintf("audit/%s/%020d.json", me.OrgID, head), 0)
	require.NoError(t, err)
	require.Contains(t, string(body), `"org_id":"`+me.OrgID+`"`)
	_, err = os.Stat(filepath.Join(s.Dir, "audit-heads"))
	require.True(t, os.IsNotExist(err), "no directory sink unless audit_heads_dir is set")

	jwks := filepath.Join(t.TempDir(), "jwks.json")
	require.NoError(t, os.WriteFile(jwks, s.Do("GET", "/.well-known/jwks.json", "", nil).Body, 0o600))
	verify := func() (string, error) {
		cmd := exec.Command(stack.Bin(t, "ocv"), "audit", "verify", "--database-url", s.DatabaseURL,
			"--jwks", jwks, "--heads", "s3://"+bucket+"/audit")
		cmd.Env = append(os.Environ(), s3env...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	out, err := verify()
	require.NoError(t, err, out)
	require.Contains(t, out, fmt.Sprintf("ok   org %s: %d events chained", me.OrgID, head))

	cut := strconv.FormatInt(head-3, 10)
	execSQL(t, s, `DELETE FROM audit_events WHERE org_id = '`+me.OrgID+`' AND chain_seq > `+cut)
	execSQL(t, s, `DELETE FROM audit_heads WHERE org_id = '`+me.OrgID+`' AND chain_seq > `+cut)
	out, err = verify()
	require.Error(t, err, out)
	require.Contains(t, out, "FAIL audit chain of org "+me.OrgID+" broken at seq "+strconv.FormatInt(head, 10))
	require.Contains(t, out, "chain ends at "+cut)
}
