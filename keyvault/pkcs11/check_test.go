//go:build cgo

package pkcs11_test

import (
	"context"
	"crypto/rand"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
	"github.com/opencustody/ocv/keyvault/pkcs11"
	"github.com/opencustody/ocv/keyvault/pkcs11/softhsmtest"
)

// Environment of the child process that destroys a key on a token another
// process uses (TestCheckKeyOtherProcess runs this test binary again).
const (
	childEnv = "OCV_CHECKKEY_CHILD"
	labelEnv = "OCV_CHECKKEY_LABEL"
	pinEnv   = "OCV_CHECKKEY_PIN"
)

var checkKEK = keyvault.KeyRef{ID: "kek/check", Version: 1}

// TestCheckKeyChildDestroy is the child's body; it does nothing in a normal
// run.
func TestCheckKeyChildDestroy(t *testing.T) {
	if os.Getenv(childEnv) != "1" {
		t.Skip("child process only")
	}
	cfg := pkcs11.Config{ModulePath: os.Getenv(softhsmtest.ModuleEnv), TokenLabel: os.Getenv(labelEnv), PIN: os.Getenv(pinEnv)}
	if cfg.ModulePath == "" {
		cfg.ModulePath = softhsmtest.DefaultModulePath
	}
	s, err := pkcs11.New(context.Background(), cfg)
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close()) }()
	require.NoError(t, s.DestroyKey(context.Background(), checkKEK))
}

// destroyInOtherProcess destroys checkKEK on cfg's token from a separate
// process, which has its own SoftHSM instance and object cache.
func destroyInOtherProcess(t testing.TB, cfg pkcs11.Config) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCheckKeyChildDestroy$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"=1", labelEnv+"="+cfg.TokenLabel, pinEnv+"="+cfg.PIN)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
}

// TestCheckKeyOtherProcess: a key destroyed by another process is gone for
// CheckKey at once, although this process holds its handle in cache and
// just used it; Key (the handle cache) does not notice, which is why the
// enclave asks CheckKey.
func TestCheckKeyOtherProcess(t *testing.T) {
	cfg := softhsmtest.New(t)
	s, err := pkcs11.New(t.Context(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	_, err = s.CreateKey(t.Context(), keyvault.CreateKeyRequest{Ref: checkKEK, Algorithm: keyvault.AES256})
	require.NoError(t, err)
	dek := make([]byte, 32)
	_, _ = rand.Read(dek)
	wrapped, err := s.WrapKey(t.Context(), checkKEK, dek)
	require.NoError(t, err)
	require.NoError(t, s.CheckKey(t.Context(), checkKEK))

	destroyInOtherProcess(t, cfg)

	_, err = s.Key(t.Context(), checkKEK)
	require.NoError(t, err, "Key answers from the handle cache")
	err = s.CheckKey(t.Context(), checkKEK)
	require.ErrorIs(t, err, keyvault.ErrKeyNotFound)
	_, err = s.UnwrapKey(t.Context(), checkKEK, wrapped)
	require.ErrorIs(t, err, keyvault.ErrKeyNotFound)
	versions, err := s.Versions(t.Context(), checkKEK.ID)
	require.NoError(t, err)
	require.Empty(t, versions)
}

// Benchmarks of the two ways to learn that a KEK still exists; run with
//
//	go test -run '^$' -bench CheckKey -benchtime 2s ./keyvault/pkcs11/
//
// The token holds extra keys so that a search has a directory to list.
func benchmarkCheck(b *testing.B, extra int, check func(ctx context.Context, s *pkcs11.Store) error) {
	s := newStore(b)
	for i := range extra {
		_, err := s.CreateKey(b.Context(), keyvault.CreateKeyRequest{Ref: keyvault.KeyRef{ID: "kek/other", Version: uint32(i + 1)}, Algorithm: keyvault.AES256})
		require.NoError(b, err)
	}
	_, err := s.CreateKey(b.Context(), keyvault.CreateKeyRequest{Ref: checkKEK, Algorithm: keyvault.AES256})
	require.NoError(b, err)
	require.NoError(b, check(b.Context(), s))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := check(b.Context(), s); err != nil {
			b.Fatal(err)
		}
	}
}

func checkAttr(ctx context.Context, s *pkcs11.Store) error { return s.CheckKey(ctx, checkKEK) }

func checkFind(ctx context.Context, s *pkcs11.Store) error {
	return pkcs11.FindKey(ctx, s, checkKEK)
}

func checkVersions(ctx context.Context, s *pkcs11.Store) error {
	_, err := s.Versions(ctx, checkKEK.ID)
	return err
}

func BenchmarkCheckKeyAttr10(b *testing.B)      { benchmarkCheck(b, 10, checkAttr) }
func BenchmarkCheckKeyAttr200(b *testing.B)     { benchmarkCheck(b, 200, checkAttr) }
func BenchmarkCheckKeyFind10(b *testing.B)      { benchmarkCheck(b, 10, checkFind) }
func BenchmarkCheckKeyFind200(b *testing.B)     { benchmarkCheck(b, 200, checkFind) }
func BenchmarkCheckKeyVersions10(b *testing.B)  { benchmarkCheck(b, 10, checkVersions) }
func BenchmarkCheckKeyVersions200(b *testing.B) { benchmarkCheck(b, 200, checkVersions) }

// BenchmarkCheckKeyVsUnwrap is an unwrap run one at a time like the checks
// above: the cost of an Open that misses the DEK cache.
func BenchmarkCheckKeyVsUnwrap(b *testing.B) {
	s := newStore(b)
	_, err := s.CreateKey(b.Context(), keyvault.CreateKeyRequest{Ref: checkKEK, Algorithm: keyvault.AES256})
	require.NoError(b, err)
	dek := make([]byte, 32)
	_, _ = rand.Read(dek)
	wrapped, err := s.WrapKey(b.Context(), checkKEK, dek)
	require.NoError(b, err)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.UnwrapKey(b.Context(), checkKEK, wrapped); err != nil {
			b.Fatal(err)
		}
	}
}
