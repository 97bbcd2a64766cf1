package passhash

import (
	"context"
	"errors"
	"testing"
)

func TestHashVerify(t *testing.T) {
	ctx := context.Background()
	h, err := Hash(ctx, "correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(ctx, h, "correct horse"); err != nil {
		t.Fatalf("the right password: %v", err)
	}
	const salt, sum = "c2FsdHNhbHRzYWx0c2FsdA", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	tests := map[string]struct {
		hash, password string
		mismatch       bool // ErrMismatch rather than a parse error
	}{
		"fail wrong password":        {h, "correct horsf", true},
		"fail no hash":               {"", "correct horse", true},
		"fail memory over the bound": {"$argon2id$v=19$m=1048576,t=2,p=1$" + salt + "$" + sum, "pw", false},
		"fail passes over the bound": {"$argon2id$v=19$m=19456,t=64,p=1$" + salt + "$" + sum, "pw", false},
		"fail argon2i":               {"$argon2i$v=19$m=19456,t=2,p=1$" + salt + "$" + sum, "pw", false},
		"fail old version":           {"$argon2id$v=16$m=19456,t=2,p=1$" + salt + "$" + sum, "pw", false},
		"fail short key":             {"$argon2id$v=19$m=19456,t=2,p=1$" + salt + "$AAAA", "pw", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := Verify(ctx, tc.hash, tc.password)
			if err == nil {
				t.Fatal("verified")
			}
			if errors.Is(err, ErrMismatch) != tc.mismatch {
				t.Fatalf("err = %v, mismatch want %v", err, tc.mismatch)
			}
		})
	}
}
