package intents

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

const testAgentID = "0190f1a2-0000-7000-8000-000000000001"

func TestCheckSigningKeyPath(t *testing.T) {
	tests := map[string]struct {
		path    string
		wantErr bool
	}{
		"ok keys":              {path: "keys/main"},
		"ok wallets":           {path: "wallets/hot/1"},
		"ok own agent keys":    {path: "agents/" + testAgentID + "/keys/main"},
		"ok own agent chains":  {path: "agents/" + testAgentID + "/chains/ethereum"},
		"fail other prefix":    {path: "vaults/x", wantErr: true},
		"fail empty key":       {path: "keys/", wantErr: true},
		"fail bare agents":     {path: "agents/" + testAgentID, wantErr: true},
		"fail other agent":     {path: "agents/0190f1a2-0000-7000-8000-000000000002/keys/main", wantErr: true},
		"fail uuid in keys":    {path: "keys/0190f1a2-0000-7000-8000-000000000002", wantErr: true},
		"fail dot dot":         {path: "keys/../wallets/x", wantErr: true},
		"fail backslash":       {path: "keys\\x", wantErr: true},
		"ok uuid of the agent": {path: "wallets/" + testAgentID},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p := tc.path
			err := CheckSigningKeyPath(&p, testAgentID)
			if tc.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
		})
	}
	require.NoError(t, CheckSigningKeyPath(nil, testAgentID), "absent is fine")
}

func TestTokenAmount(t *testing.T) {
	six := 6
	registry := func(d int, ok bool) func() (int, bool) { return func() (int, bool) { return d, ok } }
	tests := map[string]struct {
		value    string
		decimals *int
		reg      func() (int, bool)
		want     string
		wantErr  bool
	}{
		"ok hex base units":        {value: "0x64", reg: registry(0, false), want: "100"},
		"ok decimal with given":    {value: "1.5", decimals: &six, reg: registry(18, true), want: "1500000"},
		"ok decimal from registry": {value: "2", reg: registry(6, true), want: "2000000"},
		"fail decimal unknown":     {value: "2", reg: registry(0, false), wantErr: true},
		"fail too many digits":     {value: "1.1234567", decimals: &six, reg: registry(0, false), wantErr: true},
		"fail empty":               {value: "", reg: registry(6, true), wantErr: true},
		"fail negative":            {value: "-1", decimals: &six, reg: registry(0, false), wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := tokenAmount(tc.value, tc.decimals, tc.reg)
			if tc.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got.String())
		})
	}
}

func TestChainRef(t *testing.T) {
	for in, want := range map[string]string{`"base"`: "base", `8453`: "8453", `"8453"`: "8453"} {
		got, err := chainRef(json.RawMessage(in))
		require.NoError(t, err, in)
		require.Equal(t, want, got)
	}
	for _, in := range []string{`1.5`, `{}`, `""`, `true`} {
		_, err := chainRef(json.RawMessage(in))
		require.Error(t, err, in)
	}
}
