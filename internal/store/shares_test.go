package store_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/internal/store/storetest"
)

func seedShare(t *testing.T, s *store.Store, max int) store.Share {
	t.Helper()
	ctx := context.Background()
	org, vault := seedOrg(t, s)
	sec, _, err := s.PutSecret(ctx, store.Secret{OrgID: org, VaultID: vault, Path: "a/b", Type: "password",
		Metadata: json.RawMessage(`{}`)}, sealer("x"), func(bool) *auditchain.Event { return event(org, "secret.write") })
	require.NoError(t, err)
	sh, err := s.CreateShare(ctx, store.Share{OrgID: org, ID: newID(), SecretID: sec.ID, VaultID: vault, Path: sec.Path,
		CreatorType: "user", CreatorID: newID(), RecipientType: "anyone_with_link", ExpiresAt: time.Now().Add(time.Hour),
		MaxAccessCount: max, IPAllowlist: []string{}}, event(org, "share.create"))
	require.NoError(t, err)
	require.Equal(t, max, sh.Remaining)
	return sh
}

func TestConsumeShareIsAtomic(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	for name, tc := range map[string]struct{ max, callers int }{
		"single use, 20 callers": {max: 1, callers: 20},
		"three uses, 12 callers": {max: 3, callers: 12},
	} {
		t.Run(name, func(t *testing.T) {
			sh := seedShare(t, s, tc.max)
			var mu sync.Mutex
			ok, gone := 0, 0
			var wg sync.WaitGroup
			for range tc.callers {
				wg.Go(func() {
					_, err := s.ConsumeShare(ctx, sh.ID)
					mu.Lock()
					defer mu.Unlock()
					if err == nil {
						ok++
					} else if assertUnavailable(err) {
						gone++
					}
				})
			}
			wg.Wait()
			require.Equal(t, tc.max, ok)
			require.Equal(t, tc.callers-tc.max, gone)
		})
	}
}

func assertUnavailable(err error) bool { return err != nil && errorsIs(err, store.ErrShareUnavailable) }

func TestShareStates(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	// expires is the share's expiry relative to the database's now(), the
	// clock ConsumeShare judges it on (whatever this process's clock says).
	tests := map[string]struct {
		status  string
		expires string
		wantErr error
	}{
		"open":                {expires: "1 minute"},
		"expired":             {expires: "-1 second", wantErr: store.ErrShareUnavailable},
		"expires at this now": {expires: "0 seconds", wantErr: store.ErrShareUnavailable},
		"revoked":             {status: store.ShareRevoked, expires: "1 minute", wantErr: store.ErrShareUnavailable},
		"declined":            {status: store.ShareDeclined, expires: "1 minute", wantErr: store.ErrShareUnavailable},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			sh := seedShare(t, s, 5)
			if tc.status != "" {
				_, err := s.SetShareStatus(ctx, sh.ID, tc.status, func(store.Share) bool { return true },
					func(x store.Share) *auditchain.Event { return event(x.OrgID, "share.x") })
				require.NoError(t, err)
			}
			_, err := s.Pool().Exec(ctx, `UPDATE shares SET expires_at = now() + $2::interval WHERE id = $1`, sh.ID, tc.expires)
			require.NoError(t, err)
			left, err := s.ConsumeShare(ctx, sh.ID)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Equal(t, 4, left)
			}
		})
	}
	t.Run("refused status change is not found", func(t *testing.T) {
		sh := seedShare(t, s, 1)
		_, err := s.SetShareStatus(ctx, sh.ID, store.ShareRevoked, func(store.Share) bool { return false },
			func(x store.Share) *auditchain.Event { return nil })
		require.ErrorIs(t, err, store.ErrNotFound)
	})
}

func TestShareServesItsVersion(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	sh := seedShare(t, s, 3)
	require.EqualValues(t, 1, sh.SecretVersion)
	// Rotating the secret does not move the share.
	_, _, err := s.PutSecret(ctx, store.Secret{OrgID: sh.OrgID, VaultID: sh.VaultID, Path: sh.Path, Type: "password",
		Metadata: json.RawMessage(`{}`)}, sealer("y"), func(bool) *auditchain.Event { return event(sh.OrgID, "secret.write") })
	require.NoError(t, err)
	got, err := s.GetShare(ctx, sh.ID)
	require.NoError(t, err)
	require.EqualValues(t, 1, got.SecretVersion)
	for name, tc := range map[string]struct {
		version uint32
		wantErr error
	}{
		"the shared version":      {version: 1},
		"the newer version":       {version: 2},
		"a version never written": {version: 9, wantErr: store.ErrNotFound},
	} {
		t.Run(name, func(t *testing.T) {
			sec, sealed, err := s.SharedSecret(ctx, sh.OrgID, sh.SecretID, tc.version)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Equal(t, tc.version, sec.Version)
				require.NotEmpty(t, sealed.Ciphertext)
			}
		})
	}
}

func TestShareAttempts(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	const window = 15 * time.Minute
	now := time.Now().Truncate(time.Second) // PostgreSQL keeps microseconds
	share := store.ShareAttempt{Key: "share:" + newID(), Limit: 2}
	addr := store.ShareAttempt{Key: "addr:" + newID(), Limit: 3}
	both := []store.ShareAttempt{share, addr}
	for i := range 2 {
		wait, err := s.CountShareAttempt(ctx, both, window, now)
		require.NoError(t, err)
		require.Zero(t, wait, "attempt %d is within the limits", i+1)
	}
	wait, err := s.ShareAttemptWait(ctx, both, window, now)
	require.NoError(t, err)
	require.Equal(t, window, wait, "the share is at its limit until its window ends")
	wait, err = s.CountShareAttempt(ctx, both, window, now.Add(time.Minute))
	require.NoError(t, err)
	require.Equal(t, window-time.Minute, wait, "a third attempt on the share is over its limit")
	// A success gives its attempt back.
	require.NoError(t, s.ForgiveShareAttempt(ctx, []store.ShareAttempt{addr}))
	wait, err = s.ShareAttemptWait(ctx, []store.ShareAttempt{addr}, window, now)
	require.NoError(t, err)
	require.Zero(t, wait)
	// A new window starts when the last one ended.
	wait, err = s.CountShareAttempt(ctx, both, window, now.Add(window+time.Second))
	require.NoError(t, err)
	require.Zero(t, wait)
	// Concurrent attempts cannot overrun a limit.
	racy := []store.ShareAttempt{{Key: "share:" + newID(), Limit: 5}}
	var mu sync.Mutex
	allowed := 0
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			w, err := s.CountShareAttempt(ctx, racy, window, now)
			mu.Lock()
			defer mu.Unlock()
			if err == nil && w == 0 {
				allowed++
			}
		})
	}
	wg.Wait()
	require.Equal(t, 5, allowed)
}
