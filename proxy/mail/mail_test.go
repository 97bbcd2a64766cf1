package mail

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestLogSenderNeverLogsTheToken(t *testing.T) {
	var buf bytes.Buffer
	s := NewLogSender(slog.New(slog.NewJSONHandler(&buf, nil)))
	const token = "ocvi_canary-token-must-not-be-logged-000000000"
	err := s.SendInvite(context.Background(), Invite{ID: "inv-1", OrgID: "org-1", Email: "a@example.com", Role: "member",
		ExpiresAt: time.Now(), Token: token})
	require.NoError(t, err)
	out := buf.String()
	require.Contains(t, out, "inv-1")
	require.Contains(t, out, "a@example.com")
	require.NotContains(t, out, "canary", "the invitation token reached the log")
}
