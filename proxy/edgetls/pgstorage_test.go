package edgetls

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"

	"github.com/caddyserver/certmagic"
	"github.com/stretchr/testify/require"
)

func TestPGStorageConformance(t *testing.T) {
	s := NewPGStorage(newTestPool(t, testPoolConfig(t)))
	exerciseStorage(t, s)
}

// exerciseStorage checks the certmagic.Storage contract documented on
// PGStorage: files, implicit directories, missing keys, List semantics.
func exerciseStorage(t *testing.T, s certmagic.Storage) {
	ctx := context.Background()
	files := map[string]string{
		"certificates/acme/example.com/example.com.crt":                     "cert",
		"certificates/acme/example.com/example.com.key":                     "key",
		"certificates/acme/example.com/example.com.json":                    "{}",
		"certificates/acme/wildcard_.example.org/wildcard_.example.org.crt": "wcert",
		"certificates/acmeX/other.crt":                                      "x",
		// LIKE trap: '_' must not match any character in a prefix
		"certificates/acme/wildcardX.example.org/w.crt": "trap",
		"acme/users/a@b.c/a.json":                       "acct",
		"ab/c":                                          "ab",
	}
	for k, v := range files {
		require.NoError(t, s.Store(ctx, k, []byte(v)))
	}

	t.Run("load", func(t *testing.T) {
		for k, v := range files {
			got, err := s.Load(ctx, k)
			require.NoError(t, err)
			require.Equal(t, v, string(got))
		}
	})
	t.Run("overwrite and empty value", func(t *testing.T) {
		require.NoError(t, s.Store(ctx, "tmp/v", []byte("one")))
		require.NoError(t, s.Store(ctx, "tmp/v", []byte("two")))
		got, err := s.Load(ctx, "tmp/v")
		require.NoError(t, err)
		require.Equal(t, "two", string(got))
		require.NoError(t, s.Store(ctx, "tmp/v", nil))
		got, err = s.Load(ctx, "tmp/v")
		require.NoError(t, err)
		require.Empty(t, got)
		require.NoError(t, s.Delete(ctx, "tmp"))
	})
	t.Run("missing keys", func(t *testing.T) {
		_, err := s.Load(ctx, "nope/x")
		require.ErrorIs(t, err, fs.ErrNotExist)
		_, err = s.Stat(ctx, "nope/x")
		require.ErrorIs(t, err, fs.ErrNotExist)
		_, err = s.List(ctx, "nope", false)
		require.ErrorIs(t, err, fs.ErrNotExist)
		require.NoError(t, s.Delete(ctx, "nope/x"))
		require.False(t, s.Exists(ctx, "nope/x"))
	})
	t.Run("exists", func(t *testing.T) {
		cases := map[string]struct {
			key  string
			want bool
		}{
			"file":           {key: "ab/c", want: true},
			"directory":      {key: "certificates/acme", want: true},
			"top directory":  {key: "certificates", want: true},
			"partial prefix": {key: "a", want: false}, // "a" prefixes "ab/c" only textually
			"below a file":   {key: "ab/c/d", want: false},
			"invalid key":    {key: "../etc", want: false},
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				require.Equal(t, tc.want, s.Exists(ctx, tc.key))
			})
		}
	})
	t.Run("stat", func(t *testing.T) {
		fi, err := s.Stat(ctx, "certificates/acme/example.com/example.com.crt")
		require.NoError(t, err)
		require.True(t, fi.IsTerminal)
		require.Equal(t, int64(len("cert")), fi.Size)
		require.Equal(t, "certificates/acme/example.com/example.com.crt", fi.Key)
		require.False(t, fi.Modified.IsZero())

		fi, err = s.Stat(ctx, "certificates/acme/example.com")
		require.NoError(t, err)
		require.False(t, fi.IsTerminal)
		require.False(t, fi.Modified.IsZero())
	})
	t.Run("list", func(t *testing.T) {
		cases := map[string]struct {
			prefix    string
			recursive bool
			want      []string
			wantErr   error
		}{
			"children": {
				prefix: "certificates/acme",
				want: []string{
					"certificates/acme/example.com",
					"certificates/acme/wildcardX.example.org", // byte order: 'X' < '_'
					"certificates/acme/wildcard_.example.org",
				},
			},
			"files of a site": {
				prefix: "certificates/acme/example.com",
				want: []string{
					"certificates/acme/example.com/example.com.crt",
					"certificates/acme/example.com/example.com.json",
					"certificates/acme/example.com/example.com.key",
				},
			},
			// '_' in the prefix is literal, so wildcardX.example.org is not listed
			"underscore prefix": {
				prefix: "certificates/acme/wildcard_.example.org",
				want:   []string{"certificates/acme/wildcard_.example.org/wildcard_.example.org.crt"},
			},
			"recursive": {
				prefix: "certificates", recursive: true,
				want: []string{
					"certificates/acme",
					"certificates/acme/example.com",
					"certificates/acme/example.com/example.com.crt",
					"certificates/acme/example.com/example.com.json",
					"certificates/acme/example.com/example.com.key",
					"certificates/acme/wildcardX.example.org",
					"certificates/acme/wildcardX.example.org/w.crt",
					"certificates/acme/wildcard_.example.org",
					"certificates/acme/wildcard_.example.org/wildcard_.example.org.crt",
					"certificates/acmeX",
					"certificates/acmeX/other.crt",
				},
			},
			"root":         {prefix: "", want: []string{"ab", "acme", "certificates"}},
			"fail missing": {prefix: "certificates/none", wantErr: fs.ErrNotExist},
			// a file has no children
			"fail file":      {prefix: "ab/c", wantErr: fs.ErrNotExist},
			"fail traversal": {prefix: "certificates/../acme", wantErr: ErrInvalidKey},
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				got, err := s.List(ctx, tc.prefix, tc.recursive)
				require.ErrorIs(t, err, tc.wantErr)
				require.Equal(t, tc.want, got)
			})
		}
	})
	t.Run("delete", func(t *testing.T) {
		require.NoError(t, s.Store(ctx, "del/a/1", []byte("1")))
		require.NoError(t, s.Store(ctx, "del/a/2/3", []byte("3")))
		require.NoError(t, s.Store(ctx, "del/ab", []byte("sibling")))
		require.NoError(t, s.Delete(ctx, "del/a"))
		require.False(t, s.Exists(ctx, "del/a"))
		require.False(t, s.Exists(ctx, "del/a/2/3"))
		require.True(t, s.Exists(ctx, "del/ab"), "a sibling sharing a textual prefix survives")
		require.NoError(t, s.Delete(ctx, "del/ab"))
		_, err := s.Stat(ctx, "del")
		require.ErrorIs(t, err, fs.ErrNotExist)
	})
}

func TestPGStorageInvalidKeys(t *testing.T) {
	s := NewPGStorage(newTestPool(t, testPoolConfig(t)))
	ctx := context.Background()
	cases := map[string]struct {
		key     string
		wantErr error
	}{
		"valid":               {key: "certificates/acme/example.com/example.com.crt"},
		"fail empty":          {key: "", wantErr: ErrInvalidKey},
		"fail leading slash":  {key: "/etc/passwd", wantErr: ErrInvalidKey}, // absolute paths are never certmagic keys
		"fail trailing slash": {key: "a/", wantErr: ErrInvalidKey},
		"fail double slash":   {key: "a//b", wantErr: ErrInvalidKey}, // would alias "a/b" in a file store
		"fail dot-dot":        {key: "a/../b", wantErr: ErrInvalidKey},
		"fail dot":            {key: "./a", wantErr: ErrInvalidKey},
		"fail backslash":      {key: `a\b`, wantErr: ErrInvalidKey},
		"fail NUL":            {key: "a\x00b", wantErr: ErrInvalidKey}, // PostgreSQL text cannot hold NUL
		"fail control":        {key: "a\nb", wantErr: ErrInvalidKey},
		"fail invalid UTF-8":  {key: "a\xffb", wantErr: ErrInvalidKey},
		"fail too long":       {key: strings.Repeat("a", maxKeyLen+1), wantErr: ErrInvalidKey},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, s.Store(ctx, tc.key, []byte("v")), tc.wantErr)
			_, err := s.Load(ctx, tc.key)
			if tc.wantErr == nil {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, tc.wantErr)
			}
			_, err = s.Stat(ctx, tc.key)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
			}
			require.ErrorIs(t, s.Delete(ctx, tc.key), tc.wantErr)
			if tc.wantErr != nil {
				require.ErrorIs(t, s.Lock(ctx, tc.key), tc.wantErr)
				_, err = s.TryLock(ctx, tc.key)
				require.ErrorIs(t, err, tc.wantErr)
			}
		})
	}
}

func TestPGStorageHonoursContext(t *testing.T) {
	s := NewPGStorage(newTestPool(t, testPoolConfig(t)))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, s.Store(ctx, "a/b", []byte("v")), context.Canceled)
	_, err := s.Load(ctx, "a/b")
	require.ErrorIs(t, err, context.Canceled)
	_, err = s.List(ctx, "a", true)
	require.ErrorIs(t, err, context.Canceled)
	_, err = s.Stat(ctx, "a/b")
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, s.Delete(ctx, "a/b"), context.Canceled)
	require.ErrorIs(t, s.Lock(ctx, "l"), context.Canceled)
}

func TestPGStorageConcurrentStores(t *testing.T) {
	s := NewPGStorage(newTestPool(t, testPoolConfig(t)))
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 20 {
				key := fmt.Sprintf("c/%d", j%4)
				if err := s.Store(ctx, key, []byte(fmt.Sprint(i))); err != nil {
					t.Errorf("store: %v", err)
					return
				}
				if _, err := s.Load(ctx, key); err != nil {
					t.Errorf("load: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	got, err := s.List(ctx, "c", false)
	require.NoError(t, err)
	require.Equal(t, []string{"c/0", "c/1", "c/2", "c/3"}, got)
}
