package sim

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestNewCreatesCA(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sim-ca")
	first := newIssuerIn(t, Config{Dir: dir})

	st, err := os.Stat(dir)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), st.Mode().Perm())
	for _, name := range []string{rootKeyFile, interKeyFile} {
		st, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), st.Mode().Perm(), name)
	}

	// A second issuer reuses the CA on disk but gets its own signing key.
	second := newIssuerIn(t, Config{Dir: dir})
	require.Equal(t, first.Root().Raw, second.Root().Raw)
	require.Equal(t, first.ca.inter.Raw, second.ca.inter.Raw)
	require.NotEqual(t, first.leaf.Raw, second.leaf.Raw)

	root, err := LoadRoot(RootPath(dir))
	require.NoError(t, err)
	require.Equal(t, first.Root().Raw, root.Raw)
	require.Equal(t, filepath.Join(dir, "root.pem"), RootPath(dir))
}

// Racing creators in one directory must agree on one root, and every
// document any of them issues must chain to the root left on disk.
func TestNewConcurrentSameDir(t *testing.T) {
	dir := t.TempDir()
	const n = 6
	issuers := make([]*Issuer, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			issuers[i], errs[i] = New(Config{Dir: dir})
		}()
	}
	wg.Wait()
	root, err := LoadRoot(RootPath(dir))
	require.NoError(t, err)
	v := validatorFor(t, root, time.Now)
	for i := range n {
		require.NoError(t, errs[i])
		require.Equal(t, root.Raw, issuers[i].Root().Raw)
		doc, err := issuers[i].Issue(t.Context(), testKey, testNonce)
		require.NoError(t, err)
		_, err = v.Validate(t.Context(), doc, testNonce)
		require.NoError(t, err)
	}
	leftovers, err := filepath.Glob(filepath.Join(dir, ".tmp-*"))
	require.NoError(t, err)
	require.Empty(t, leftovers)
}

func TestNewCAFiles(t *testing.T) {
	tests := map[string]struct {
		damage  func(t *testing.T, dir string)
		wantErr error
	}{
		"ok intact": {damage: func(*testing.T, string) {}},
		// An intermediate is never pinned, so a missing one is simply reissued.
		"ok intermediate missing": {damage: func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, interCertFile)))
		}},
		"ok intermediate key mismatch": {damage: func(t *testing.T, dir string) {
			copyFile(t, filepath.Join(dir, rootKeyFile), filepath.Join(dir, interKeyFile))
		}},
		// A root may be pinned by verifiers: never replace it silently.
		"fail root key missing": {damage: func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, rootKeyFile)))
		}, wantErr: ErrCorruptCA},
		"fail root cert missing": {damage: func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, rootCertFile)))
		}, wantErr: ErrCorruptCA},
		"fail root key mismatch": {damage: func(t *testing.T, dir string) {
			copyFile(t, filepath.Join(dir, interKeyFile), filepath.Join(dir, rootKeyFile))
		}, wantErr: ErrCorruptCA},
		"fail root not PEM": {damage: func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, rootCertFile), []byte("junk"), 0o644))
		}, wantErr: ErrCorruptCA},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			orig := newIssuerIn(t, Config{Dir: dir})
			tc.damage(t, dir)
			iss, err := New(Config{Dir: dir})
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr != nil {
				return
			}
			require.Equal(t, orig.Root().Raw, iss.Root().Raw)
			doc, err := iss.Issue(t.Context(), testKey, testNonce)
			require.NoError(t, err)
			_, err = validatorFor(t, orig.Root(), time.Now).Validate(t.Context(), doc, testNonce)
			require.NoError(t, err)
		})
	}
}

func TestIntermediateRenewedNearExpiry(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	first := newIssuerIn(t, Config{Dir: dir, Now: func() time.Time { return start }})
	later := start.Add(interLifetime - interRenewBefore/2)
	second := newIssuerIn(t, Config{Dir: dir, Now: func() time.Time { return later }})
	require.Equal(t, first.Root().Raw, second.Root().Raw)
	require.NotEqual(t, first.ca.inter.Raw, second.ca.inter.Raw)
	require.True(t, second.ca.inter.NotAfter.After(later.Add(interRenewBefore)))
}

func TestLoadRoot(t *testing.T) {
	dir := t.TempDir()
	newIssuerIn(t, Config{Dir: dir})
	tests := map[string]struct {
		path    string
		wantErr bool
	}{
		"ok":           {path: RootPath(dir)},
		"fail missing": {path: filepath.Join(dir, "nope.pem"), wantErr: true},
		"fail key":     {path: filepath.Join(dir, rootKeyFile), wantErr: true}, // a key is not a certificate
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			root, err := LoadRoot(tc.path)
			if tc.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.True(t, root.IsCA)
		})
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(to, b, 0o600))
}
