package cli

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/api"
)

func TestEnvName(t *testing.T) {
	tests := map[string]struct {
		path, want string
	}{
		"simple":              {path: "DB_PASSWORD", want: "DB_PASSWORD"},
		"last segment":        {path: "prod/db/password", want: "PASSWORD"},
		"lower and dashes":    {path: "team a/café/db-password", want: "DB_PASSWORD"},
		"non-ASCII to _":      {path: "x/clé.api", want: "CL__API"},
		"space":               {path: "a b", want: "A_B"},
		"leading digit":       {path: "keys/1password", want: "_1PASSWORD"},
		"all punctuation":     {path: "x/--", want: "__"},
		"dot in a name (pem)": {path: "tls/server.key", want: "SERVER_KEY"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, api.EnvName(tc.path))
			require.Regexp(t, envNameRE, api.EnvName(tc.path))
		})
	}
}

func TestEnvMapping(t *testing.T) {
	tests := map[string]struct {
		listed   []string
		explicit map[string]string
		want     map[string]string
		wantErr  error
	}{
		"derived": {listed: []string{"db/password", "db/user"},
			want: map[string]string{"PASSWORD": "db/password", "USER": "db/user"}},
		"explicit renames a listed path": {listed: []string{"db/password"}, explicit: map[string]string{"PGPASSWORD": "db/password"},
			want: map[string]string{"PGPASSWORD": "db/password"}},
		"explicit wins a name": {listed: []string{"a/token", "b/x"}, explicit: map[string]string{"TOKEN": "b/x"},
			want: map[string]string{"TOKEN": "b/x"}},
		"explicit path not listed": {explicit: map[string]string{"K": "k/v"}, want: map[string]string{"K": "k/v"}},
		// Two paths with one derived name: picking one silently would hand
		// the child the wrong secret.
		"fail derived clash": {listed: []string{"a/db-password", "b/DB_PASSWORD"}, wantErr: ErrEnvConflict},
		"clash resolved by --env": {listed: []string{"a/token", "b/token"}, explicit: map[string]string{"B_TOKEN": "b/token"},
			want: map[string]string{"TOKEN": "a/token", "B_TOKEN": "b/token"}},
		"same path listed twice": {listed: []string{"a/x", "a/x"}, want: map[string]string{"X": "a/x"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := envMapping(tc.listed, tc.explicit)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Equal(t, tc.want, got)
			}
		})
	}
}

func TestParseEnvFlags(t *testing.T) {
	tests := map[string]struct {
		flags   []string
		want    map[string]string
		wantErr error
	}{
		"ok":                 {flags: []string{"A=x/y", "B_2=z=w"}, want: map[string]string{"A": "x/y", "B_2": "z=w"}},
		"fail no equals":     {flags: []string{"A"}, wantErr: ErrUsage},
		"fail empty path":    {flags: []string{"A="}, wantErr: ErrUsage},
		"fail bad name":      {flags: []string{"1A=x"}, wantErr: ErrUsage},
		"fail name injected": {flags: []string{"A;B=x"}, wantErr: ErrUsage},
		"fail twice":         {flags: []string{"A=x", "A=y"}, wantErr: ErrUsage},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := parseEnvFlags(tc.flags)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Equal(t, tc.want, got)
			}
		})
	}
}

func TestUnderPrefix(t *testing.T) {
	tests := map[string]struct {
		path, prefix string
		want         bool
	}{
		"itself":         {path: "db/password", prefix: "db/password", want: true},
		"inside":         {path: "db/password", prefix: "db", want: true},
		"sibling prefix": {path: "dbx/password", prefix: "db", want: false},
		"whole vault":    {path: "a/b", prefix: "", want: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, underPrefix(tc.path, tc.prefix))
		})
	}
}

func TestChildEnv(t *testing.T) {
	got := childEnv([]string{"PATH=/bin", "OCV_TOKEN=t", "OCV_API_KEY=k", "DB=old", "OCV_URL=u"},
		map[string]string{"DB": "new", "A": "1"})
	require.Equal(t, []string{"PATH=/bin", "OCV_URL=u", "A=1", "DB=new"}, got,
		"secrets override inherited names; the CLI's credentials are not passed on")
}
