// Package s3lite is a small client for S3-compatible object stores: PUT
// (optionally conditional), GET and ListObjectsV2 over path-style URLs
// (endpoint/bucket/key), signed with AWS Signature Version 4. It exists so
// that the proxy can write its audit heads to a bucket without an SDK.
package s3lite

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"slices"
	"strings"
	"time"
)

// EmptyHash is the SHA-256 of an empty payload (GET, list).
const EmptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// UnsignedPayload is the payload hash that leaves the body unsigned.
const UnsignedPayload = "UNSIGNED-PAYLOAD"

// signedHeader reports whether a header takes part in the signature: host
// and x-amz-* always, plus the few standard ones S3 requests here carry.
func signedHeader(name string) bool {
	switch name {
	case "host", "range", "content-type", "content-md5", "if-none-match", "if-match":
		return true
	}
	return strings.HasPrefix(name, "x-amz-")
}

// Sign adds x-amz-date, x-amz-content-sha256 and Authorization to req
// (SigV4, service s3). payloadHash is the hex SHA-256 of the body or
// UnsignedPayload. req.URL must already be in canonical form: its path
// escaped by EscapePath and its RawQuery by CanonicalQuery.
func Sign(req *http.Request, accessKeyID, secretKey, region, payloadHash string, now time.Time) {
	now = now.UTC()
	amzDate := now.Format("20060102T150405Z")
	day := now.Format("20060102")
	req.Header.Set("X-Amz-Date", amzDate)
	req.Header.Set("X-Amz-Content-Sha256", payloadHash)
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	headers := map[string]string{"host": host}
	for k, v := range req.Header {
		if lk := strings.ToLower(k); signedHeader(lk) && lk != "host" {
			headers[lk] = strings.Join(trimAll(v), ",")
		}
	}
	names := make([]string, 0, len(headers))
	for k := range headers {
		names = append(names, k)
	}
	slices.Sort(names)
	var canon strings.Builder
	for _, k := range names {
		canon.WriteString(k + ":" + headers[k] + "\n")
	}
	signed := strings.Join(names, ";")
	path := req.URL.EscapedPath()
	if path == "" {
		path = "/"
	}
	creq := strings.Join([]string{req.Method, path, req.URL.RawQuery, canon.String(), signed, payloadHash}, "\n")
	scope := day + "/" + region + "/s3/aws4_request"
	sts := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + hexSHA256([]byte(creq))
	key := hmacSHA256([]byte("AWS4"+secretKey), day)
	for _, part := range []string{region, "s3", "aws4_request"} {
		key = hmacSHA256(key, part)
	}
	sig := hex.EncodeToString(hmacSHA256(key, sts))
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+accessKeyID+"/"+scope+
		", SignedHeaders="+signed+", Signature="+sig)
}

func trimAll(v []string) []string {
	out := make([]string, len(v))
	for i, s := range v {
		out[i] = strings.Join(strings.Fields(s), " ")
	}
	return out
}

func hmacSHA256(key []byte, msg string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}

func hexSHA256(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Escape is SigV4's URI encoding: every byte but A-Z a-z 0-9 - _ . ~ as
// %XX (upper case); '/' too unless keepSlash.
func Escape(s string, keepSlash bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_', c == '.', c == '~',
			c == '/' && keepSlash:
			b.WriteByte(c)
		default:
			b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
		}
	}
	return b.String()
}

// CanonicalQuery encodes params sorted by name, SigV4 style (it is also a
// valid URL query, so the request sends exactly what was signed).
func CanonicalQuery(params map[string]string) string {
	names := make([]string, 0, len(params))
	for k := range params {
		names = append(names, k)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = Escape(k, false) + "=" + Escape(params[k], false)
	}
	return strings.Join(parts, "&")
}
