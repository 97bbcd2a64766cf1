package stack

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/opencustody/ocv/api"
)

// Response is an HTTP answer with its body read.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a map.
func (r Response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("decoding %d answer %q: %v", r.Status, r.Body, err)
	}
	return m
}

// Decode decodes the body into v, an API answer type.
func (r Response) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decoding %d answer %q: %v", r.Status, r.Body, err)
	}
}

// Do sends a request. body may be nil, a string (sent as is) or any value
// (sent as JSON).
func (s *Stack) Do(method, path, token string, body any) Response {
	s.t.Helper()
	return s.DoHeaders(method, path, token, body, nil)
}

// DoHeaders is Do with extra request headers (X-PAYMENT, Idempotency-Key).
func (s *Stack) DoHeaders(method, path, token string, body any, header http.Header) Response {
	s.t.Helper()
	r, err := s.TryHeaders(method, path, token, body, header)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	return r
}

// TryHeaders is DoHeaders that returns a transport error (the proxy died
// while answering, as a crash hook makes it) instead of failing the test.
func (s *Stack) TryHeaders(method, path, token string, body any, header http.Header) (Response, error) {
	s.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		enc, err := json.Marshal(b)
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

// Account is a signed-up user with a token.
type Account struct {
	Email, Password, UserID, OrgID, Token string
}

// SignUp creates a user (and its organization) and signs in.
func (s *Stack) SignUp(email string) Account {
	s.t.Helper()
	a := Account{Email: email, Password: "correct horse battery " + randHex(4)}
	r := s.Do("POST", "/v1/auth/signup", "", api.SignupRequest{Email: &a.Email, Password: &a.Password})
	if r.Status != http.StatusCreated {
		s.t.Fatalf("signup: %d %s", r.Status, r.Body)
	}
	var up api.SignupResponse
	r.Decode(s.t, &up)
	if up.UserID == "" || up.OrgID == "" {
		s.t.Fatalf("signup: no user_id or org_id in %s", r.Body)
	}
	a.UserID, a.OrgID = up.UserID, up.OrgID
	r = s.Do("POST", "/v1/auth/token", "", api.TokenRequest{Email: &a.Email, Password: &a.Password})
	if r.Status != http.StatusOK {
		s.t.Fatalf("token: %d %s", r.Status, r.Body)
	}
	var tok api.TokenResponse
	r.Decode(s.t, &tok)
	if tok.AccessToken == "" {
		s.t.Fatalf("token: no access_token in %s", r.Body)
	}
	a.Token = tok.AccessToken
	return a
}

// CreateVault creates a vault and returns its id.
func (s *Stack) CreateVault(token, name string) string {
	s.t.Helper()
	r := s.Do("POST", "/v1/vaults", token, map[string]string{"name": name})
	if r.Status != http.StatusCreated {
		s.t.Fatalf("create vault: %d %s", r.Status, r.Body)
	}
	return r.JSON(s.t)["id"].(string)
}
