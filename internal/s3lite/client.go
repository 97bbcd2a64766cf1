package s3lite

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Errors a caller branches on.
var (
	ErrNotFound           = errors.New("s3: no such object")
	ErrPreconditionFailed = errors.New("s3: precondition failed (object exists)")
)

// Response bounds: an error body, a list page and MaxObject for GET.
const (
	maxErrorBody = 4 << 10
	maxListBody  = 4 << 20
	// MaxObject bounds Get when the caller gives no bound.
	MaxObject = 1 << 20
)

// Config names a store and its credentials. The secret key is used only
// to sign; it is never logged or put in an error.
type Config struct {
	Endpoint        string // https://host[:port]; http only for a loopback host
	Region          string // default us-east-1
	AccessKeyID     string
	SecretAccessKey string
	HTTPClient      *http.Client // default: 30 s timeout
}

// Client talks to one S3-compatible endpoint with path-style URLs.
type Client struct {
	base   *url.URL
	cfg    Config
	client *http.Client
	now    func() time.Time
}

// New validates cfg.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.Endpoint)
	if err != nil || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return nil, fmt.Errorf("s3 endpoint %q: want scheme://host[:port] with no path", cfg.Endpoint)
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !loopback(u.Hostname()) {
			return nil, fmt.Errorf("s3 endpoint %q: plain http is allowed only for a loopback host", cfg.Endpoint)
		}
	default:
		return nil, fmt.Errorf("s3 endpoint %q: scheme must be https", cfg.Endpoint)
	}
	if cfg.AccessKeyID == "" || cfg.SecretAccessKey == "" {
		return nil, errors.New("s3: access key id and secret access key are required")
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	u.Path = ""
	return &Client{base: u, cfg: cfg, client: hc, now: time.Now}, nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ValidBucket reports whether b is a bucket name this client can address
// (lower-case letters, digits, dots and dashes, 3 to 63 bytes).
func ValidBucket(b string) bool {
	return len(b) >= 3 && len(b) <= 63 && !strings.ContainsFunc(b, func(r rune) bool {
		return !(r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z')
	})
}

func (c *Client) do(ctx context.Context, method, bucket, key string, query map[string]string, body []byte,
	hdr map[string]string) (*http.Response, error) {
	if !ValidBucket(bucket) {
		return nil, fmt.Errorf("s3: invalid bucket name %q", bucket)
	}
	u := *c.base
	u.Path = "/" + bucket + "/" + key
	u.RawPath = "/" + Escape(bucket, false) + "/" + Escape(key, true)
	u.RawQuery = CanonicalQuery(query)
	req, err := http.NewRequestWithContext(ctx, method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("s3: building request: %w", err)
	}
	req.ContentLength = int64(len(body))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	hash := EmptyHash
	if len(body) > 0 {
		s := sha256.Sum256(body)
		hash = hex.EncodeToString(s[:])
	}
	Sign(req, c.cfg.AccessKeyID, c.cfg.SecretAccessKey, c.cfg.Region, hash, c.now())
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("s3 %s %s/%s: %w", method, bucket, key, err)
	}
	return resp, nil
}

// failure turns a non-2xx answer into an error naming S3's error code.
func failure(resp *http.Response, what string) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	var e struct {
		Code string `xml:"Code"`
	}
	_ = xml.Unmarshal(b, &e)
	if e.Code != "" {
		return fmt.Errorf("s3 %s: HTTP %d %s", what, resp.StatusCode, e.Code)
	}
	return fmt.Errorf("s3 %s: HTTP %d", what, resp.StatusCode)
}

// Put stores body at bucket/key. With ifNoneMatch it sends
// If-None-Match: * and returns ErrPreconditionFailed when the object
// already exists (HTTP 412; 409 too, which some stores answer to a race).
func (c *Client) Put(ctx context.Context, bucket, key string, body []byte, contentType string, ifNoneMatch bool) error {
	hdr := map[string]string{}
	if contentType != "" {
		hdr["Content-Type"] = contentType
	}
	if ifNoneMatch {
		hdr["If-None-Match"] = "*"
	}
	resp, err := c.do(ctx, http.MethodPut, bucket, key, nil, body, hdr)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode/100 == 2:
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
		return nil
	case ifNoneMatch && (resp.StatusCode == http.StatusPreconditionFailed || resp.StatusCode == http.StatusConflict):
		return ErrPreconditionFailed
	}
	return failure(resp, "PUT "+bucket+"/"+key)
}

// Get reads bucket/key, at most limit bytes (MaxObject when limit <= 0);
// a larger object is an error. A missing object is ErrNotFound.
func (c *Client) Get(ctx context.Context, bucket, key string, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = MaxObject
	}
	resp, err := c.do(ctx, http.MethodGet, bucket, key, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, ErrNotFound
	case resp.StatusCode != http.StatusOK:
		return nil, failure(resp, "GET "+bucket+"/"+key)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("s3 GET %s/%s: %w", bucket, key, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("s3 GET %s/%s: object is over %d bytes", bucket, key, limit)
	}
	return b, nil
}

type listResult struct {
	IsTruncated           bool   `xml:"IsTruncated"`
	NextContinuationToken string `xml:"NextContinuationToken"`
	Contents              []struct {
		Key string `xml:"Key"`
	} `xml:"Contents"`
}

// maxPages bounds a listing (1000 keys a page at most).
const maxPages = 100000

// List calls fn with every key under prefix, in the store's order
// (lexicographic for S3), following continuation tokens.
func (c *Client) List(ctx context.Context, bucket, prefix string, fn func(key string) error) error {
	token := ""
	for range maxPages {
		q := map[string]string{"list-type": "2", "prefix": prefix}
		if token != "" {
			q["continuation-token"] = token
		}
		page, err := c.listPage(ctx, bucket, q)
		if err != nil {
			return err
		}
		for _, o := range page.Contents {
			if err := fn(o.Key); err != nil {
				return err
			}
		}
		if !page.IsTruncated {
			return nil
		}
		if page.NextContinuationToken == "" || page.NextContinuationToken == token {
			return fmt.Errorf("s3 list %s/%s: truncated page without a new continuation token", bucket, prefix)
		}
		token = page.NextContinuationToken
	}
	return fmt.Errorf("s3 list %s/%s: over %d pages", bucket, prefix, maxPages)
}

func (c *Client) listPage(ctx context.Context, bucket string, q map[string]string) (*listResult, error) {
	resp, err := c.do(ctx, http.MethodGet, bucket, "", q, nil, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, failure(resp, "list "+bucket)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxListBody+1))
	if err != nil {
		return nil, fmt.Errorf("s3 list %s: %w", bucket, err)
	}
	if len(b) > maxListBody {
		return nil, fmt.Errorf("s3 list %s: page over %d bytes", bucket, maxListBody)
	}
	var page listResult
	if err := xml.Unmarshal(b, &page); err != nil {
		return nil, fmt.Errorf("s3 list %s: decoding page: %w", bucket, err)
	}
	return &page, nil
}

// ParseURL splits s3://bucket/prefix into bucket and prefix (without
// leading or trailing slashes; the prefix may be empty).
func ParseURL(s string) (bucket, prefix string, err error) {
	rest, ok := strings.CutPrefix(s, "s3://")
	if !ok {
		return "", "", fmt.Errorf("%q is not an s3://bucket/prefix URL", s)
	}
	bucket, prefix, _ = strings.Cut(rest, "/")
	prefix = strings.Trim(prefix, "/")
	if !ValidBucket(bucket) {
		return "", "", fmt.Errorf("%q: invalid bucket name %q", s, bucket)
	}
	if strings.Contains(prefix, "//") || strings.ContainsAny(prefix, "?#\\") || len(prefix) > 512 {
		return "", "", fmt.Errorf("%q: invalid prefix", s)
	}
	return bucket, prefix, nil
}

// FromEnv builds a Config from OCV_AUDIT_HEADS_S3_ENDPOINT, _REGION,
// _ACCESS_KEY_ID and _SECRET_ACCESS_KEY (or _SECRET_ACCESS_KEY_FILE).
func FromEnv(lookup func(string) (string, bool), readFile func(string) ([]byte, error)) (Config, error) {
	get := func(k string) string { v, _ := lookup("OCV_AUDIT_HEADS_S3_" + k); return v }
	cfg := Config{Endpoint: get("ENDPOINT"), Region: get("REGION"), AccessKeyID: get("ACCESS_KEY_ID"),
		SecretAccessKey: get("SECRET_ACCESS_KEY")}
	if f := get("SECRET_ACCESS_KEY_FILE"); f != "" && cfg.SecretAccessKey == "" {
		b, err := readFile(f)
		if err != nil {
			return cfg, fmt.Errorf("reading OCV_AUDIT_HEADS_S3_SECRET_ACCESS_KEY_FILE: %w", err)
		}
		cfg.SecretAccessKey = strings.TrimSpace(string(b))
	}
	if cfg.Endpoint == "" {
		return cfg, errors.New("OCV_AUDIT_HEADS_S3_ENDPOINT is required with an s3:// heads URL")
	}
	return cfg, nil
}

// String names the endpoint, region and key id, never the secret.
func (c Config) String() string {
	return fmt.Sprintf("s3lite.Config{Endpoint: %q, Region: %q, AccessKeyID: %q, SecretAccessKey: [redacted]}",
		c.Endpoint, c.Region, c.AccessKeyID)
}
