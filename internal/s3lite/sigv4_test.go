package s3lite

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSignAWSExample is the "GET Object" example of the AWS Signature
// Version 4 documentation (Authenticating Requests: Using the
// Authorization Header, Examples).
func TestSignAWSExample(t *testing.T) {
	req, err := http.NewRequest(http.MethodGet, "https://examplebucket.s3.amazonaws.com/test.txt", nil)
	require.NoError(t, err)
	req.Header.Set("Range", "bytes=0-9")
	Sign(req, "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "us-east-1", EmptyHash,
		time.Date(2013, 5, 24, 0, 0, 0, 0, time.UTC))
	require.Equal(t, "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "+
		"SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "+
		"Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41", req.Header.Get("Authorization"))
	require.Equal(t, "20130524T000000Z", req.Header.Get("X-Amz-Date"))
}

func TestEscapeAndQuery(t *testing.T) {
	require.Equal(t, "a%20b%2Fc~_.-", Escape("a b/c~_.-", false))
	require.Equal(t, "p/org/0001.json", Escape("p/org/0001.json", true))
	require.Equal(t, "continuation-token=a%2Bb%3D&list-type=2&prefix=p%2F",
		CanonicalQuery(map[string]string{"prefix": "p/", "list-type": "2", "continuation-token": "a+b="}))
}

func TestNewValidates(t *testing.T) {
	ok := Config{AccessKeyID: "k", SecretAccessKey: "s"}
	for _, tc := range []struct {
		endpoint string
		ok       bool
	}{
		{"https://s3.example.com", true},
		{"http://127.0.0.1:9000", true},
		{"http://localhost:9000/", true},
		{"http://[::1]:9000", true},
		{"http://s3.example.com", false},
		{"ftp://127.0.0.1", false},
		{"https://s3.example.com/bucket", false},
		{"https://user:pw@s3.example.com", false},
		{"s3.example.com", false},
	} {
		cfg := ok
		cfg.Endpoint = tc.endpoint
		_, err := New(cfg)
		require.Equal(t, tc.ok, err == nil, "%s: %v", tc.endpoint, err)
	}
	_, err := New(Config{Endpoint: "https://s3.example.com", AccessKeyID: "k"})
	require.Error(t, err)
}

func TestParseURL(t *testing.T) {
	for _, tc := range []struct{ in, bucket, prefix string }{
		{"s3://heads", "heads", ""},
		{"s3://heads/", "heads", ""},
		{"s3://heads/ocv/prod/", "heads", "ocv/prod"},
	} {
		b, p, err := ParseURL(tc.in)
		require.NoError(t, err, tc.in)
		require.Equal(t, [2]string{tc.bucket, tc.prefix}, [2]string{b, p}, tc.in)
	}
	for _, bad := range []string{"heads", "https://heads/x", "s3://", "s3://Up", "s3://b_b/x", "s3://heads/a//b", "s3://heads/a?b"} {
		_, _, err := ParseURL(bad)
		require.Error(t, err, bad)
	}
}

func TestConfigStringRedactsSecret(t *testing.T) {
	cfg := Config{Endpoint: "https://s3.example.com", AccessKeyID: "AKID", SecretAccessKey: "topsecret"}
	for _, s := range []string{cfg.String(), fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%v", &cfg)} {
		require.NotContains(t, s, "topsecret")
		require.Contains(t, s, "AKID")
	}
}
