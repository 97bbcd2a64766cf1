package cli

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestShareID(t *testing.T) {
	const id = "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
	tests := map[string]struct {
		in      string
		wantErr error
	}{
		"bare id":        {in: id},
		"link":           {in: "https://vault.example.com/v1/share/" + id},
		"link with /":    {in: "https://vault.example.com/v1/share/" + id + "/"},
		"api path":       {in: "/v1/share/" + id},
		"fail not an id": {in: "nope", wantErr: ErrUsage},
		"fail bad link":  {in: "https://vault.example.com/v1/share/x", wantErr: ErrUsage},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := shareID(tc.in)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Equal(t, id, got)
			}
		})
	}
}

func TestRedactURL(t *testing.T) {
	tests := map[string]struct{ in, want string }{
		"plain":      {in: "https://hooks.example.com/x", want: "https://hooks.example.com/x"},
		"query":      {in: "https://hooks.example.com/x?token=abc", want: "https://hooks.example.com/x?…"},
		"userinfo":   {in: "https://u:p@hooks.example.com/", want: "https://hooks.example.com/"},
		"unparsable": {in: "http://[::1", want: "(unparsable)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, redactURL(tc.in))
		})
	}
}
