package auth

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeKeys resolves keys from a map and counts lookups.
type fakeKeys struct {
	mu      sync.Mutex
	keys    map[string]APIKey // by hex-free string of the hash
	lookups int
	err     error
}

func (f *fakeKeys) ResolveAPIKey(_ context.Context, hash []byte) (APIKey, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lookups++
	if f.err != nil {
		return APIKey{}, f.err
	}
	k, ok := f.keys[string(hash)]
	if !ok {
		return APIKey{}, fmt.Errorf("finding key: %w", ErrInvalidToken)
	}
	return k, nil
}

func (f *fakeKeys) add(t *testing.T, k APIKey) string {
	t.Helper()
	tok, hash, err := NewOpaque(APIKeyPrefix)
	require.NoError(t, err)
	f.mu.Lock()
	f.keys[string(hash)] = k
	f.mu.Unlock()
	return tok
}

func (f *fakeKeys) remove(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for h, k := range f.keys {
		if k.ID == id {
			delete(f.keys, h)
		}
	}
}

func TestAPIKeyVerifier(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := &fakeKeys{keys: map[string]APIKey{}}
	v := NewAPIKeyVerifier(f, time.Minute)
	v.now = func() time.Time { return now }
	live := f.add(t, APIKey{ID: "k1", UserID: "u", OrgID: "o", Role: "owner", PlatformRole: "admin"})
	expiring := f.add(t, APIKey{ID: "k2", UserID: "u", OrgID: "o", ExpiresAt: now.Add(time.Hour)})
	expired := f.add(t, APIKey{ID: "k3", UserID: "u", OrgID: "o", ExpiresAt: now})
	malformed := live[:len(live)-1]

	tests := map[string]struct {
		token   string
		wantErr error
	}{
		"ok live":     {token: live},
		"ok expiring": {token: expiring},
		// The expiry instant itself is already expired.
		"fail expired":   {token: expired, wantErr: ErrInvalidToken},
		"fail malformed": {token: malformed, wantErr: ErrInvalidToken},
		"fail unknown":   {token: APIKeyPrefix + live[len(APIKeyPrefix)+1:] + "A", wantErr: ErrInvalidToken},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p, err := v.Verify(context.Background(), tc.token)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Equal(t, PrincipalUser, p.Type)
				require.Equal(t, "u", p.ID)
				require.NotEmpty(t, p.APIKeyID)
				require.Empty(t, p.TokenID)
			}
		})
	}

	t.Run("cached, then forgotten", func(t *testing.T) {
		before := f.lookups
		p, err := v.Verify(context.Background(), live)
		require.NoError(t, err)
		require.Equal(t, "admin", p.PlatformRole)
		require.Equal(t, before, f.lookups, "served from the cache")
		f.remove("k1")
		_, err = v.Verify(context.Background(), live)
		require.NoError(t, err, "still cached until forgotten")
		v.Forget("k1")
		_, err = v.Verify(context.Background(), live)
		require.ErrorIs(t, err, ErrInvalidToken)
	})

	t.Run("cache entries age out", func(t *testing.T) {
		_, err := v.Verify(context.Background(), expiring)
		require.NoError(t, err)
		f.remove("k2")
		now = now.Add(2 * time.Minute)
		_, err = v.Verify(context.Background(), expiring)
		require.ErrorIs(t, err, ErrInvalidToken)
	})

	t.Run("flush", func(t *testing.T) {
		k := f.add(t, APIKey{ID: "k4", UserID: "u", OrgID: "o"})
		_, err := v.Verify(context.Background(), k)
		require.NoError(t, err)
		f.remove("k4")
		v.Flush()
		_, err = v.Verify(context.Background(), k)
		require.ErrorIs(t, err, ErrInvalidToken)
	})

	t.Run("database error is not a 401", func(t *testing.T) {
		boom := errors.New("boom")
		f.err = boom
		defer func() { f.err = nil }()
		k := f.add(t, APIKey{ID: "k5"})
		_, err := v.Verify(context.Background(), k)
		require.ErrorIs(t, err, boom)
		require.NotErrorIs(t, err, ErrInvalidToken)
	})
}

func TestVerifierDispatchesAPIKeys(t *testing.T) {
	f := &fakeKeys{keys: map[string]APIKey{}}
	tok := f.add(t, APIKey{ID: "k1", UserID: "u", OrgID: "o", Role: "member"})
	v := NewVerifier(nil, nil, "https://ocv.example")
	_, err := v.Verify(context.Background(), tok)
	require.ErrorIs(t, err, ErrInvalidToken, "without an APIKeyVerifier keys are refused")
	v.APIKeys = NewAPIKeyVerifier(f, time.Minute)
	p, err := v.Verify(context.Background(), tok)
	require.NoError(t, err)
	require.Equal(t, "k1", p.APIKeyID)
	require.Equal(t, "member", p.Role)
}
