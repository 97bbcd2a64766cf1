// Package s3fake is an in-memory S3 endpoint for tests: path-style PUT
// (with If-None-Match: *), GET and ListObjectsV2 with small pages, and a
// check that every request carries a SigV4 Authorization for one key id.
package s3fake

import (
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Server is the fake.
type Server struct {
	*httptest.Server
	KeyID    string
	PageSize int

	mu            sync.Mutex
	objects       map[string][]byte // "bucket/key" -> body
	noConditional bool
}

// Object is the body at "bucket/key" (nil when missing).
func (s *Server) Object(bucketKey string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.objects[bucketKey]
}

// IgnoreIfNoneMatch makes PUT overwrite regardless of If-None-Match, as
// some stores do.
func (s *Server) IgnoreIfNoneMatch() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noConditional = true
}

// New starts a fake that accepts requests signed with keyID.
func New(keyID string) *Server {
	s := &Server{KeyID: keyID, PageSize: 2, objects: map[string][]byte{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Put sets an object directly.
func (s *Server) Put(bucketKey string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.objects[bucketKey] = body
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	auth := r.Header.Get("Authorization")
	if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential="+s.KeyID+"/") || r.Header.Get("X-Amz-Date") == "" {
		http.Error(w, "<Error><Code>AccessDenied</Code></Error>", http.StatusForbidden)
		return
	}
	bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case r.Method == http.MethodPut:
		if _, exists := s.objects[bucket+"/"+key]; exists && !s.noConditional && r.Header.Get("If-None-Match") == "*" {
			http.Error(w, "<Error><Code>PreconditionFailed</Code></Error>", http.StatusPreconditionFailed)
			return
		}
		b, _ := io.ReadAll(r.Body)
		s.objects[bucket+"/"+key] = b
	case r.Method == http.MethodGet && key == "" && r.URL.Query().Get("list-type") == "2":
		s.list(w, bucket, r.URL.Query().Get("prefix"), r.URL.Query().Get("continuation-token"))
	case r.Method == http.MethodGet:
		b, ok := s.objects[bucket+"/"+key]
		if !ok {
			http.Error(w, "<Error><Code>NoSuchKey</Code></Error>", http.StatusNotFound)
			return
		}
		_, _ = w.Write(b)
	default:
		http.Error(w, "", http.StatusMethodNotAllowed)
	}
}

type listResult struct {
	XMLName               xml.Name `xml:"ListBucketResult"`
	IsTruncated           bool
	NextContinuationToken string   `xml:",omitempty"`
	Contents              []object `xml:"Contents"`
}

type object struct{ Key string }

func (s *Server) list(w http.ResponseWriter, bucket, prefix, token string) {
	var keys []string
	for bk := range s.objects {
		if k, ok := strings.CutPrefix(bk, bucket+"/"); ok && strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	start, _ := strconv.Atoi(token)
	end := min(start+s.PageSize, len(keys))
	res := listResult{IsTruncated: end < len(keys)}
	if res.IsTruncated {
		res.NextContinuationToken = strconv.Itoa(end)
	}
	for _, k := range keys[min(start, len(keys)):end] {
		res.Contents = append(res.Contents, object{Key: k})
	}
	w.Header().Set("Content-Type", "application/xml")
	_ = xml.NewEncoder(w).Encode(res)
}
