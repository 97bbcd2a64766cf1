package client_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/policy"
)

// BenchmarkOpen measures one Open through client → Unix socket → enclave
// (memstore key store, DEK cache warm), 256-byte value.
func BenchmarkOpen(b *testing.B) {
	e := newEnv(b)
	e.start(b)
	c := e.client(b, testPCR0)
	waitAttested(b, c)
	ctx := context.Background()
	_, err := c.CreateKEK(ctx, mint(b, e, "u-owner", "user", "owner"), "org", "vault")
	require.NoError(b, err)
	sealed, err := c.Seal(ctx, wire.SealRequest{OrgID: "org", VaultID: "vault", Path: "bench/value", SecretVersion: 1, Plaintext: bytes.Repeat([]byte{'x'}, 256)})
	require.NoError(b, err)
	req := wire.OpenRequest{OrgID: "org", VaultID: "vault", Path: "bench/value", SecretVersion: 1, WrappedDEK: sealed.WrappedDEK, Ciphertext: sealed.Ciphertext}

	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Open(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := c.Open(ctx, req); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// BenchmarkOpenAuthorized is BenchmarkOpen for a member whose access the
// enclave checks: token (verified once, then cached) and a MAC'd policy set
// of 50 policies (cached after its first MAC check), evaluated per request.
func BenchmarkOpenAuthorized(b *testing.B) {
	e := newEnv(b)
	e.requireToken = true
	e.start(b)
	c := e.client(b, testPCR0)
	waitAttested(b, c)
	ctx := context.Background()
	owner := mint(b, e, "u-owner", "user", "owner")
	member := mint(b, e, "u-member", "user", "member")
	_, err := c.CreateKEK(ctx, owner, "org", "vault")
	require.NoError(b, err)
	sealed, err := c.Seal(ctx, wire.SealRequest{OrgID: "org", VaultID: "vault", Path: "bench/value", SecretVersion: 1, Plaintext: bytes.Repeat([]byte{'x'}, 256), Token: owner})
	require.NoError(b, err)
	var ps []policy.Policy
	for i := range 50 {
		ps = append(ps, policy.Policy{ID: fmt.Sprintf("p%02d", i), Pattern: fmt.Sprintf("team-%d/**", i), PrincipalType: "user",
			PrincipalID: fmt.Sprintf("u-%d", i%5), Permissions: []policy.Permission{policy.PermissionRead}, Effect: policy.EffectAllow})
	}
	ps = append(ps, policy.Policy{ID: "member", Pattern: "bench/*", PrincipalType: "user", PrincipalID: "u-member",
		Permissions: []policy.Permission{policy.PermissionRead}, Effect: policy.EffectAllow, Conditions: policy.Conditions{IPCIDRs: []string{"10.0.0.0/8"}}})
	set := policy.EncodeSet("vault", 1, ps)
	mac, err := c.SealPolicySet(ctx, wire.SealPolicySetRequest{OrgID: "org", VaultID: "vault", Version: 1, Set: set, ChangerToken: owner})
	require.NoError(b, err)
	req := wire.OpenRequest{OrgID: "org", VaultID: "vault", Path: "bench/value", SecretVersion: 1, WrappedDEK: sealed.WrappedDEK, Ciphertext: sealed.Ciphertext,
		Token: member, PolicySet: set, PolicyMAC: mac, ClientIP: "10.1.2.3"}
	_, err = c.Open(ctx, req)
	require.NoError(b, err)

	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Open(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := c.Open(ctx, req); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
