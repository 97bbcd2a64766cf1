package handlers

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/proxy/webhooks"
)

func TestCheckWebhookURL(t *testing.T) {
	h := &Handlers{}
	loop := &Handlers{Deps: Deps{Webhooks: webhooks.Options{AllowLoopback: true}}}
	tests := map[string]struct {
		h       *Handlers
		url     string
		wantErr bool
	}{
		"public https":        {h: h, url: "https://hooks.example.com/x?token=t"},
		"private":             {h: h, url: "http://10.0.0.1/", wantErr: true},
		"metadata":            {h: h, url: "http://169.254.169.254/", wantErr: true},
		"localhost":           {h: h, url: "http://localhost/", wantErr: true},
		"decimal loopback":    {h: h, url: "http://2130706433/", wantErr: true},
		"file":                {h: h, url: "file:///etc/passwd", wantErr: true},
		"credentials":         {h: h, url: "https://user:hunter2@example.com/", wantErr: true},
		"too long":            {h: h, url: "https://example.com/" + strings.Repeat("a", 2100), wantErr: true},
		"loopback, test only": {h: loop, url: "http://127.0.0.1:9999/"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := tc.h.checkWebhookURL(tc.url)
			if !tc.wantErr {
				require.NoError(t, err)
				return
			}
			var p *problem.Problem
			require.True(t, errors.As(err, &p))
			require.Equal(t, problem.TypeInvalidURL, p.Type)
			require.NotContains(t, p.Detail, "hunter2")
			require.NotContains(t, p.Detail, "example.com")
		})
	}
}

func TestCheckWebhookEvents(t *testing.T) {
	tests := map[string]struct {
		in      []string
		want    []string
		wantErr bool
	}{
		"known":     {in: []string{"policy.created", "policy.deleted"}, want: []string{"policy.created", "policy.deleted"}},
		"deduped":   {in: []string{"policy.created", "policy.created"}, want: []string{"policy.created"}},
		"empty":     {in: nil, wantErr: true},
		"unknown":   {in: []string{"policy.created", "secret.exploded"}, wantErr: true},
		"too many":  {in: make([]string, 65), wantErr: true},
		"case kept": {in: []string{"Policy.Created"}, wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := checkWebhookEvents(tc.in)
			if tc.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestEnvName(t *testing.T) {
	for name, ok := range map[string]bool{"A": true, "_X1": true, "DATABASE_URL": true, "1A": false, "a-b": false, "": false, "é": false} {
		require.Equal(t, ok, envName.MatchString(name), name)
	}
}
