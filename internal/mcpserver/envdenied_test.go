package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEnvBundleDeniesRawKeys: for an agent with the intents API,
// get_env_bundle lists private_key and ssh_key secrets under denied (never
// a value or a handle); without it they are bundled like any other secret.
func TestEnvBundleDeniesRawKeys(t *testing.T) {
	tests := map[string]struct {
		reveal, noIntents, meDenied bool
		wantEnv                     map[string]any
		wantDenied                  []any
	}{
		"intents agent, values": {reveal: true, wantEnv: map[string]any{"API_KEY": "api-v"},
			wantDenied: []any{"app/DEPLOY_KEY", "app/WALLET_KEY"}},
		"intents agent, handles": {wantEnv: map[string]any{"API_KEY": "ocv://" + fakeVault + "/app/API_KEY#v1"},
			wantDenied: []any{"app/DEPLOY_KEY", "app/WALLET_KEY"}},
		"profile unreadable counts as intents": {reveal: true, meDenied: true, wantEnv: map[string]any{"API_KEY": "api-v"},
			wantDenied: []any{"app/DEPLOY_KEY", "app/WALLET_KEY"}},
		"agent without intents, values": {reveal: true, noIntents: true,
			wantEnv: map[string]any{"API_KEY": "api-v", "WALLET_KEY": "pk-v", "DEPLOY_KEY": "ssh-v"}, wantDenied: []any{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newFakeAPI(t)
			f.noIntents, f.meDenied = tc.noIntents, tc.meDenied
			f.seed("app/API_KEY", "api_key", "api-v")
			f.seed("app/WALLET_KEY", "private_key", "pk-v")
			f.seed("app/DEPLOY_KEY", "ssh_key", "ssh-v")
			cs := connect(t, f.config(tc.reveal))
			env, errText := call(t, cs, "get_env_bundle", map[string]any{"path": "app"})
			require.Empty(t, errText)
			require.Equal(t, tc.wantEnv, env["env"])
			var paths []any
			for _, d := range env["denied"].([]any) {
				e := d.(map[string]any)
				require.Equal(t, "private_key_blocked", e["reason"])
				paths = append(paths, e["path"])
			}
			if paths == nil {
				paths = []any{}
			}
			require.Equal(t, tc.wantDenied, paths)
			if !tc.noIntents {
				raw, _ := json.Marshal(env)
				require.False(t, strings.Contains(string(raw), "pk-v") || strings.Contains(string(raw), "ssh-v"), "a key leaked")
			}
		})
	}
}
