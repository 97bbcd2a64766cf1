package s3lite_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/s3lite"
	"github.com/opencustody/ocv/internal/s3lite/s3fake"
)

func TestClientAgainstFake(t *testing.T) {
	fake := s3fake.New("AKIDTEST")
	defer fake.Close()
	c, err := s3lite.New(s3lite.Config{Endpoint: fake.URL, AccessKeyID: "AKIDTEST", SecretAccessKey: "secret"})
	require.NoError(t, err)
	ctx := context.Background()

	for i := range 5 {
		require.NoError(t, c.Put(ctx, "heads", fmt.Sprintf("p/o/%d.json", i), []byte{byte('a' + i)}, "", true))
	}
	require.ErrorIs(t, c.Put(ctx, "heads", "p/o/1.json", []byte("x"), "", true), s3lite.ErrPreconditionFailed)
	b, err := c.Get(ctx, "heads", "p/o/1.json", 0)
	require.NoError(t, err)
	require.Equal(t, "b", string(b))
	_, err = c.Get(ctx, "heads", "p/o/9.json", 0)
	require.ErrorIs(t, err, s3lite.ErrNotFound)
	require.NoError(t, c.Put(ctx, "heads", "big", make([]byte, 100), "", false))
	_, err = c.Get(ctx, "heads", "big", 99)
	require.ErrorContains(t, err, "over 99 bytes")

	var keys []string
	require.NoError(t, c.List(ctx, "heads", "p/", func(k string) error { keys = append(keys, k); return nil }))
	require.Equal(t, []string{"p/o/0.json", "p/o/1.json", "p/o/2.json", "p/o/3.json", "p/o/4.json"}, keys)

	bad, err := s3lite.New(s3lite.Config{Endpoint: fake.URL, AccessKeyID: "OTHER", SecretAccessKey: "secret"})
	require.NoError(t, err)
	err = bad.Put(ctx, "heads", "k", []byte("x"), "", true)
	require.ErrorContains(t, err, "HTTP 403 AccessDenied")
	require.NotContains(t, err.Error(), "secret")
}
