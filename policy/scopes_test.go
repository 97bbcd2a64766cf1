package policy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestScopes(t *testing.T) {
	past, future := monday10.Add(-time.Minute), monday10.Add(time.Minute)
	tests := map[string]struct {
		explicit []string
		policies []Policy
		want     []string
	}{
		"none":           {want: []string{}},
		"empty explicit": {explicit: []string{}, want: []string{}},
		"explicit wins": {
			explicit: []string{"b/*", "a/**", "b/*"},
			policies: []Policy{pol("p", EffectAllow, 0, "c/**", PermissionRead)},
			want:     []string{"a/**", "b/*"},
		},
		"from allow policies": {
			policies: []Policy{
				pol("1", EffectAllow, 0, "prod/*", PermissionRead),
				pol("2", EffectAllow, 0, "dev/**", PermissionWrite),
				pol("3", EffectAllow, 5, "prod/*", PermissionWrite), // duplicate pattern
			},
			want: []string{"dev/**", "prod/*"},
		},
		"deny policies are not scopes": {
			policies: []Policy{pol("1", EffectDeny, 0, "prod/*", PermissionRead)},
			want:     []string{},
		},
		"expired allow is not a scope": {
			policies: []Policy{
				withPolicy(pol("1", EffectAllow, 0, "old/**", PermissionRead), func(p *Policy) { p.ExpiresAt = &past }),
				withPolicy(pol("2", EffectAllow, 0, "new/**", PermissionRead), func(p *Policy) { p.ExpiresAt = &future }),
			},
			want: []string{"new/**"},
		},
		"invalid patterns left out": { // never embed a pattern that cannot match into a JWT
			explicit: []string{"a**", "ok/*"},
			want:     []string{"ok/*"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := Scopes(tc.explicit, tc.policies, monday10)
			require.NotNil(t, got)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestInScopes(t *testing.T) {
	tests := map[string]struct {
		scopes []string
		path   string
		want   bool
	}{
		"no scopes":          {path: "prod/a"},
		"empty scopes":       {scopes: []string{}, path: "prod/a"},
		"one matches":        {scopes: []string{"dev/**", "prod/*"}, path: "prod/a", want: true},
		"none matches":       {scopes: []string{"dev/**", "prod/*"}, path: "prod/a/b"},
		"everything":         {scopes: []string{"**"}, path: "x/y/z", want: true},
		"invalid path":       {scopes: []string{"**"}, path: "x/../y"}, // traversal never in scope
		"invalid scope only": {scopes: []string{"x**"}, path: "xy"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, InScopes(tc.scopes, tc.path))
		})
	}
}
