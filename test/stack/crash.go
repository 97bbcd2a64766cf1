package stack

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"time"
)

// TryHeaders is DoHeaders that returns a transport error (the proxy died
// while answering, as a crash hook makes it) instead of failing the test.
func (s *Stack) TryHeaders(method, path, token string, body any, header http.Header) (Response, error) {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		enc, err := json.Marshal(body)
		if err != nil {
			s.t.Fatal(err)
		}
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequest(method, s.BaseURL+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := s.HTTP.Do(req)
	if err != nil {
		return Response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return Response{}, err
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}

// WaitProxyExit waits up to d for the proxy to end on its own (a crash
// hook) and reports whether it did.
func (s *Stack) WaitProxyExit(d time.Duration) bool {
	s.t.Helper()
	select {
	case <-s.proxy.done:
		return true
	case <-time.After(d):
		return false
	}
}

// StartProxyEnv starts the proxy again with the environment it first had
// plus kv, which wins over it (for example "OCV_TEST_CRASH_AFTER_COMMIT="
// turns a crash hook off), and waits until it answers. Later restarts
// (StartProxy) keep kv.
func (s *Stack) StartProxyEnv(kv ...string) {
	s.t.Helper()
	s.proxyArgs = append(append([]string(nil), s.proxyArgs...), kv...)
	s.StartProxy()
}
