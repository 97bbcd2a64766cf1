package auth

import (
	"crypto/sha256"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNewOpaque(t *testing.T) {
	tok, hash, err := NewOpaque(APIKeyPrefix)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(tok, "ocvk_"))
	require.Len(t, tok, len("ocvk_")+43)
	sum := sha256.Sum256([]byte(tok))
	require.Equal(t, sum[:], hash)
	require.Equal(t, hash, HashOpaque(tok))
	require.Equal(t, tok[len(tok)-4:], LastFour(tok))
	again, _, err := NewOpaque(APIKeyPrefix)
	require.NoError(t, err)
	require.NotEqual(t, tok, again)
}

func TestWellFormed(t *testing.T) {
	good := "ocvk_" + strings.Repeat("aZ9-_", 8) + "abc"
	tests := map[string]struct {
		prefix, token string
		want          bool
	}{
		"ok":             {prefix: APIKeyPrefix, token: good, want: true},
		"fail prefix":    {prefix: RefreshPrefix, token: good},
		"fail short":     {prefix: APIKeyPrefix, token: good[:len(good)-1]},
		"fail long":      {prefix: APIKeyPrefix, token: good + "a"},
		"fail no prefix": {prefix: APIKeyPrefix, token: strings.TrimPrefix(good, "ocvk_") + "abcde"},
		// Standard base64 characters are not part of the alphabet.
		"fail plus":      {prefix: APIKeyPrefix, token: good[:len(good)-1] + "+"},
		"fail space":     {prefix: APIKeyPrefix, token: good[:len(good)-1] + " "},
		"fail empty":     {prefix: APIKeyPrefix, token: ""},
		"fail non-ascii": {prefix: APIKeyPrefix, token: good[:len(good)-2] + "é"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, WellFormed(tc.prefix, tc.token))
		})
	}
	require.Equal(t, "", LastFour("abc"))
}
