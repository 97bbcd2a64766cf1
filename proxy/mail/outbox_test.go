package mail

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFileOutbox(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mail")
	var logs bytes.Buffer
	o, err := NewFileOutbox(dir, "vault@example.com", slog.New(slog.NewJSONHandler(&logs, nil)))
	require.NoError(t, err)
	require.Equal(t, dir, o.Dir())
	st, err := os.Stat(dir)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), st.Mode().Perm())

	require.NoError(t, o.SendInvite(context.Background(), testInvite()))
	inv2 := testInvite()
	inv2.ID = "0191d1a8-0000-7000-8000-000000000002"
	require.NoError(t, o.SendInvite(context.Background(), inv2))

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 2, "one file per message, no temporary file left")
	for _, e := range entries {
		require.True(t, strings.HasSuffix(e.Name(), ".eml"), e.Name())
		info, err := e.Info()
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), info.Mode().Perm())
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		m, body := bodyOf(t, raw)
		require.Equal(t, "<invitee@example.com>", m.Header.Get("To"))
		require.True(t, strings.Contains(body, canaryToken), "the token is in the message")
	}

	require.Contains(t, logs.String(), inv2.ID, "the envelope is logged")
	require.NotContains(t, logs.String(), "canary", "the token is not")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, o.SendInvite(ctx, testInvite()), context.Canceled)
}
