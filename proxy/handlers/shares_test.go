package handlers

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/passhash"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auth"
)

func TestShareRequestValidate(t *testing.T) {
	now := time.Now()
	str := func(s string) *string { return &s }
	num := func(n int) *int { return &n }
	at := func(d time.Duration) *time.Time { x := now.Add(d); return &x }
	tests := map[string]struct {
		in      api.ShareCreate
		wantErr bool
	}{
		"minimal link":       {in: api.ShareCreate{RecipientType: str("anyone_with_link"), ExpiresAt: at(time.Hour)}},
		"30 days":            {in: api.ShareCreate{RecipientType: str("creator"), ExpiresAt: at(MaxShareLifetime)}},
		"no type":            {in: api.ShareCreate{ExpiresAt: at(time.Hour)}, wantErr: true},
		"unknown type":       {in: api.ShareCreate{RecipientType: str("all"), ExpiresAt: at(time.Hour)}, wantErr: true},
		"no expiry":          {in: api.ShareCreate{RecipientType: str("creator")}, wantErr: true},
		"past":               {in: api.ShareCreate{RecipientType: str("creator"), ExpiresAt: at(-time.Second)}, wantErr: true},
		"31 days":            {in: api.ShareCreate{RecipientType: str("creator"), ExpiresAt: at(31 * 24 * time.Hour)}, wantErr: true},
		"count 0":            {in: api.ShareCreate{RecipientType: str("creator"), ExpiresAt: at(time.Hour), MaxAccessCount: num(0)}, wantErr: true},
		"count 1000":         {in: api.ShareCreate{RecipientType: str("creator"), ExpiresAt: at(time.Hour), MaxAccessCount: num(1000)}},
		"count 1001":         {in: api.ShareCreate{RecipientType: str("creator"), ExpiresAt: at(time.Hour), MaxAccessCount: num(1001)}, wantErr: true},
		"short passphrase":   {in: api.ShareCreate{RecipientType: str("creator"), ExpiresAt: at(time.Hour), Passphrase: str("1234567")}, wantErr: true},
		"bad cidr":           {in: api.ShareCreate{RecipientType: str("creator"), ExpiresAt: at(time.Hour), IPAllowlist: []string{"10.0.0.1"}}, wantErr: true},
		"email on link":      {in: api.ShareCreate{RecipientType: str("anyone_with_link"), ExpiresAt: at(time.Hour), Email: str("a@b.c")}, wantErr: true},
		"recipient on email": {in: api.ShareCreate{RecipientType: str("external_email"), ExpiresAt: at(time.Hour), RecipientID: str("x")}, wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := validateShareCreate(&tc.in, now)
			if !tc.wantErr {
				require.NoError(t, err)
				require.NotNil(t, tc.in.MaxAccessCount)
				return
			}
			var p *problem.Problem
			require.True(t, errors.As(err, &p))
			require.Equal(t, problem.TypeInvalidRequest, p.Type)
		})
	}
}

func TestCheckShareCredentials(t *testing.T) {
	ctx := context.Background()
	hash, err := auth.HashPassword(ctx, "correct passphrase")
	require.NoError(t, err)
	tests := map[string]struct {
		hash       *string
		allow      []string
		passphrase string
		ip         string
		wantErr    error
	}{
		"nothing required":       {ip: "192.0.2.1"},
		"right passphrase":       {hash: &hash, passphrase: "correct passphrase", ip: "192.0.2.1"},
		"wrong passphrase":       {hash: &hash, passphrase: "wrong", ip: "192.0.2.1", wantErr: errShareRefused},
		"missing passphrase":     {hash: &hash, ip: "192.0.2.1", wantErr: errShareRefused},
		"inside allowlist":       {allow: []string{"192.0.2.0/24"}, ip: "192.0.2.1"},
		"mapped inside":          {allow: []string{"192.0.2.0/24"}, ip: "::ffff:192.0.2.1"},
		"outside allowlist":      {allow: []string{"198.51.100.0/24"}, ip: "192.0.2.1", wantErr: errShareRefused},
		"both right":             {hash: &hash, passphrase: "correct passphrase", allow: []string{"192.0.2.0/24"}, ip: "192.0.2.1"},
		"right pass, wrong addr": {hash: &hash, passphrase: "correct passphrase", allow: []string{"198.51.100.0/24"}, ip: "192.0.2.1", wantErr: errShareRefused},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := checkShareCredentials(ctx, store.Share{PassphraseHash: tc.hash, IPAllowlist: tc.allow}, tc.passphrase, tc.ip)
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
}

func TestShareAddressKey(t *testing.T) {
	tests := map[string]struct{ ip, want string }{
		"ipv4":             {"203.0.113.9", "addr:203.0.113.9"},
		"ipv4 mapped":      {"::ffff:203.0.113.9", "addr:203.0.113.9"},
		"ipv6 by /64":      {"2001:db8:1:2:3:4:5:6", "addr:2001:db8:1:2::/64"},
		"same /64":         {"2001:db8:1:2:ffff::1", "addr:2001:db8:1:2::/64"},
		"unparseable":      {"nope", "addr:unknown"},
		"empty is unknown": {"", "addr:unknown"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			k := shareAddressKey(tc.ip)
			require.Equal(t, tc.want, k.Key)
			require.Equal(t, ShareFailuresPerAddress, k.Limit)
		})
	}
}

func TestShareThrottledRetryAfter(t *testing.T) {
	tests := map[string]struct {
		wait time.Duration
		want string
	}{
		"rounds up":         {1500 * time.Millisecond, "2"},
		"at least a second": {time.Millisecond, "1"},
		"whole minutes":     {15 * time.Minute, "900"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			w := httptest.NewRecorder()
			err := shareThrottled(w, tc.wait, "x")
			var p *problem.Problem
			require.True(t, errors.As(err, &p))
			require.Equal(t, 429, p.Status)
			require.Equal(t, TypeShareThrottled, p.Type)
			require.Equal(t, tc.want, w.Header().Get("Retry-After"))
		})
	}
}

func TestSharePassphrasePoolIsBounded(t *testing.T) {
	ctx := context.Background()
	hash, err := sharePool.Hash(ctx, "right passphrase")
	require.NoError(t, err)
	tests := map[string]struct {
		pass    string
		wantErr error
	}{
		"right":    {"right passphrase", nil},
		"wrong":    {"wrong passphrase", passhash.ErrMismatch},
		"too long": {strings.Repeat("x", maxSharePassphrase+1), passhash.ErrMismatch},
		"empty":    {"", passhash.ErrMismatch},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, verifySharePassphrase(ctx, hash, tc.pass), tc.wantErr)
		})
	}
	t.Run("a full pool answers busy quickly", func(t *testing.T) {
		for range cap(sharePool) {
			sharePool <- struct{}{}
		}
		defer func() {
			for range cap(sharePool) {
				<-sharePool
			}
		}()
		start := time.Now()
		require.ErrorIs(t, verifySharePassphrase(ctx, hash, "right passphrase"), errSharePoolBusy)
		require.Less(t, time.Since(start), 2*time.Second)
		// Sign-in's pool is another one: it still derives.
		require.NoError(t, passhash.Verify(ctx, hash, "right passphrase"))
	})
}
