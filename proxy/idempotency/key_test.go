package idempotency

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestValidateKey(t *testing.T) {
	tests := map[string]struct {
		key     string
		wantErr error
	}{
		"uuid":              {key: "7f8e2c1a-35b4-4c8e-9a51-0c2d1e6b9f10"},
		"printable ascii":   {key: "order #42 / retry ~1"},
		"max length":        {key: strings.Repeat("k", MaxKeyLen)},
		"fail empty":        {key: "", wantErr: ErrInvalidKey},
		"fail too long":     {key: strings.Repeat("k", MaxKeyLen+1), wantErr: ErrInvalidKey},
		"fail control char": {key: "a\tb", wantErr: ErrInvalidKey},   // header-splitting material
		"fail DEL":          {key: "a\x7fb", wantErr: ErrInvalidKey}, // not printable
		"fail non-ascii":    {key: "clé", wantErr: ErrInvalidKey},    // UTF-8 bytes are > 0x7e
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, ValidateKey(tc.key), tc.wantErr)
		})
	}
}

func TestRequestHashDistinct(t *testing.T) {
	base := RequestHash("POST", "/v1/vaults?", []byte(`{"name":"a"}`))
	require.Len(t, base, 32)
	require.Equal(t, base, RequestHash("POST", "/v1/vaults?", []byte(`{"name":"a"}`)))
	for name, h := range map[string][]byte{
		"method": RequestHash("PUT", "/v1/vaults?", []byte(`{"name":"a"}`)),
		"target": RequestHash("POST", "/v1/vaults/x?", []byte(`{"name":"a"}`)),
		"body":   RequestHash("POST", "/v1/vaults?", []byte(`{"name":"b"}`)),
		// Moving bytes between fields must not collide (length prefixes).
		"boundary": RequestHash("POST/", "v1/vaults?", []byte(`{"name":"a"}`)),
	} {
		require.NotEqual(t, base, h, name)
	}
}

func TestRunPurger(t *testing.T) {
	m := newMemStore()
	ctx, cancel := context.WithCancel(context.Background())
	tick := make(chan time.Time)
	done := make(chan struct{})
	go func() {
		runPurger(ctx, m, tick, nil)
		close(done)
	}()
	tick <- time.Time{} // the first purge ran before this tick was taken
	tick <- time.Time{} // the second (failing) purge ran; the loop goes on
	cancel()
	<-done
	require.GreaterOrEqual(t, len(m.purged), 3)
	for _, age := range m.purged {
		require.Equal(t, 48*time.Hour, age)
	}
}
