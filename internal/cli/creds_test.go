package cli

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestCredStorePermissions(t *testing.T) {
	tests := map[string]struct {
		setup   func(t *testing.T, dir string)
		wantErr error
	}{
		"fresh directory": {setup: func(*testing.T, string) {}},
		"loose directory is tightened": {setup: func(t *testing.T, dir string) {
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, os.Chmod(dir, 0o755))
		}},
		// A token file others can read is as good as published: refuse it.
		"fail group-readable file": {setup: func(t *testing.T, dir string) {
			require.NoError(t, os.MkdirAll(dir, 0o700))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "credentials.json"), []byte(`{"entries":{}}`), 0o640))
			require.NoError(t, os.Chmod(filepath.Join(dir, "credentials.json"), 0o640))
		}, wantErr: ErrInsecureCredentials},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "ocv")
			tc.setup(t, dir)
			s := credStore{dir: dir}
			err := s.put("https://h:1/", credEntry{AccessToken: "a", ExpiresAt: time.Now()})
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr != nil {
				return
			}
			st, err := os.Stat(dir)
			require.NoError(t, err)
			require.Equal(t, os.FileMode(0o700), st.Mode().Perm())
			st, err = os.Stat(s.path())
			require.NoError(t, err)
			require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			for _, e := range entries {
				require.NotContains(t, e.Name(), ".credentials-", "no temp file is left behind")
			}
		})
	}
}

func TestCredStoreRoundTrip(t *testing.T) {
	s := credStore{dir: filepath.Join(t.TempDir(), "ocv")}
	_, ok, err := s.get("https://a")
	require.NoError(t, err)
	require.False(t, ok, "a missing file is an empty cache")

	exp := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	require.NoError(t, s.put("https://a/", credEntry{AccessToken: "t1", RefreshToken: "r1", ExpiresAt: exp, Method: "password"}))
	require.NoError(t, s.put("https://b", credEntry{AccessToken: "t2", ExpiresAt: exp}))
	e, ok, err := s.get("https://a")
	require.NoError(t, err)
	require.True(t, ok, "entries are keyed by the URL without its trailing slash")
	require.Equal(t, "r1", e.RefreshToken)
	require.True(t, exp.Equal(e.ExpiresAt))

	require.NoError(t, s.remove("https://a"))
	_, ok, err = s.get("https://a")
	require.NoError(t, err)
	require.False(t, ok)
	_, ok, err = s.get("https://b")
	require.NoError(t, err)
	require.True(t, ok, "removing one URL keeps the others")
}

func TestCredDir(t *testing.T) {
	tests := map[string]struct {
		env  map[string]string
		want string
	}{
		"xdg":                     {env: map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}, want: "/x/ocv"},
		"home":                    {env: map[string]string{"HOME": "/h"}, want: "/h/.config/ocv"},
		"relative xdg is ignored": {env: map[string]string{"XDG_CONFIG_HOME": "rel", "HOME": "/h"}, want: "/h/.config/ocv"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := credDir(func(k string) string { return tc.env[k] })
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
