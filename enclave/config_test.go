package enclave

import (
	"bytes"
	"crypto/ed25519"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/wire"
)

// testPeerKey is a proxy identity public key for configurations.
var testPeerKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize)).Public().(ed25519.PublicKey)

// rules gives a Config the token rules and the proxy identity key every
// Config needs.
func rules(c Config) Config {
	c.Issuer, c.TokenLifetimes, c.FloorRefresh = "https://ocv.test", wire.DefaultTokenLifetimes(), DefaultFloorRefresh
	c.ProxyIdentityKeys = []ed25519.PublicKey{testPeerKey}
	return c
}

func TestConfigValidate(t *testing.T) {
	tests := map[string]struct {
		cfg     Config
		wantErr error
	}{
		"ok unix":  {rules(Config{Listen: "unix:///tmp/x.sock", Mode: wire.ModeSimulated}), nil},
		"ok vsock": {rules(Config{Listen: "vsock://:5000", Mode: wire.ModeNitro, DEKCacheSize: 10, RequireCallerToken: true}), nil},
		"ok legacy issuers": {func() Config {
			c := rules(Config{Listen: "unix:///x", Mode: wire.ModeSimulated})
			c.LegacyIssuers = []string{"https://old.example"}
			return c
		}(), nil},
		// The transitional switch never reaches production.
		"fail nitro without caller tokens": {rules(Config{Listen: "vsock://:5000", Mode: wire.ModeNitro}), ErrInvalidConfig},
		"fail tcp listen":                  {rules(Config{Listen: "tcp://127.0.0.1:1", Mode: wire.ModeSimulated}), ErrInvalidConfig},
		"fail negative dek":                {rules(Config{Listen: "unix:///x", Mode: wire.ModeSimulated, DEKCacheSize: -1}), ErrInvalidConfig},
		"fail unknown mode":                {rules(Config{Listen: "unix:///x", Mode: "tpm"}), ErrInvalidConfig},
		"fail empty listen":                {rules(Config{Mode: wire.ModeSimulated}), ErrInvalidConfig},
		// Without the token rules the enclave would accept any lifetime or issuer.
		"fail no token rules": {Config{Listen: "unix:///x", Mode: wire.ModeSimulated}, ErrInvalidConfig},
		"fail http issuer": {func() Config {
			c := rules(Config{Listen: "unix:///x", Mode: wire.ModeSimulated})
			c.Issuer = "http://ocv.test"
			return c
		}(), ErrInvalidConfig},
		"fail empty legacy issuer": {func() Config {
			c := rules(Config{Listen: "unix:///x", Mode: wire.ModeSimulated})
			c.LegacyIssuers = []string{""}
			return c
		}(), ErrInvalidConfig},
		// Without a proxy identity key the enclave would serve any peer.
		"fail no proxy identity key": {func() Config {
			c := rules(Config{Listen: "unix:///x", Mode: wire.ModeSimulated})
			c.ProxyIdentityKeys = nil
			return c
		}(), ErrInvalidConfig},
		"fail short proxy identity key": {func() Config {
			c := rules(Config{Listen: "unix:///x", Mode: wire.ModeSimulated})
			c.ProxyIdentityKeys = []ed25519.PublicKey{testPeerKey[:31]}
			return c
		}(), ErrInvalidConfig},
		"ok default floor refresh": {func() Config {
			c := rules(Config{Listen: "unix:///x", Mode: wire.ModeSimulated})
			c.FloorRefresh = 0
			return c
		}(), nil},
		"fail negative floor refresh": {func() Config {
			c := rules(Config{Listen: "unix:///x", Mode: wire.ModeSimulated})
			c.FloorRefresh = -time.Second
			return c
		}(), ErrInvalidConfig},
		// Longer would let another enclave on the HSM accept a superseded
		// set for too long.
		"fail floor refresh too long": {func() Config {
			c := rules(Config{Listen: "unix:///x", Mode: wire.ModeSimulated})
			c.FloorRefresh = 2 * time.Minute
			return c
		}(), ErrInvalidConfig},
		"fail no agent lifetime": {func() Config {
			c := rules(Config{Listen: "unix:///x", Mode: wire.ModeSimulated})
			c.TokenLifetimes.Agent = 0
			return c
		}(), ErrInvalidConfig},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, tc.cfg.Validate(), tc.wantErr)
		})
	}
}

// withIssuer is c with issuer as its issuer.
func withIssuer(c Config, issuer string) Config {
	c.Issuer = issuer
	return c
}

// envOf looks names up in m; OCV_PROXY_IDENTITY_PUBKEYS, unless m sets
// it, is testPeerKey (every configuration needs one).
func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		if !ok && k == "OCV_PROXY_IDENTITY_PUBKEYS" {
			return wire.FormatPeerPublicKey(testPeerKey), true
		}
		return v, ok
	}
}

func TestLoadProcessConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	good := write("good.yaml", "listen: vsock://16:5000\nattester:\n  kind: nitro\npkcs11:\n  token_label: prod\ndek_cache_size: 10\n")
	unknown := write("unknown.yaml", "listen: unix:///x\npin: 1234\n")
	legacy := write("legacy.yaml", "public_url: https://vault.example\nlegacy_issuers: [https://old.example]\ntoken_ttl: 10m\n")
	floor := write("floor.yaml", "floor_refresh: 5s\n")
	noFloor := write("nofloor.yaml", "floor_refresh: 0s\n")

	tests := map[string]struct {
		path    string
		env     map[string]string
		check   func(t *testing.T, c ProcessConfig)
		wantErr error
	}{
		"ok defaults": {"", nil, func(t *testing.T, c ProcessConfig) {
			want := DefaultProcessConfig()
			want.ProxyIdentityPubkeys = []string{wire.FormatPeerPublicKey(testPeerKey)}
			require.Equal(t, want, c)
			require.Equal(t, Config{Listen: "unix://.ocv/enclave.sock", DEKCacheSize: 4096, Mode: wire.ModeSimulated, RequireCallerToken: true,
				Issuer: "https://127.0.0.1:8443", TokenLifetimes: wire.TokenLifetimes{User: 900 * time.Second, Agent: 7200 * time.Second},
				ProxyIdentityKeys: []ed25519.PublicKey{testPeerKey}, FloorRefresh: time.Second}, c.Server())
		}, nil},
		"ok file": {good, nil, func(t *testing.T, c ProcessConfig) {
			require.Equal(t, rules(Config{Listen: "vsock://16:5000", DEKCacheSize: 10, Mode: wire.ModeNitro, RequireCallerToken: true}),
				withIssuer(c.Server(), "https://ocv.test"))
			require.Equal(t, "prod", c.PKCS11.TokenLabel)
			require.Equal(t, "/usr/lib/softhsm/libsofthsm2.so", c.PKCS11.ModulePath, "unset keys keep defaults")
		}, nil},
		"ok env over file": {good, map[string]string{"OCV_ENCLAVE_DEK_CACHE_SIZE": "0", "OCV_ENCLAVE_ATTESTER": "sim", "OCV_ENCLAVE_LOG_LEVEL": "debug", "OCV_ENCLAVE_REQUIRE_CALLER_TOKEN": "false"}, func(t *testing.T, c ProcessConfig) {
			require.Equal(t, rules(Config{Listen: "vsock://16:5000", DEKCacheSize: 0, Mode: wire.ModeSimulated}),
				withIssuer(c.Server(), "https://ocv.test"))
		}, nil},
		"ok token rules from the env": {good, map[string]string{"OCV_PUBLIC_URL": "https://vault.example", "OCV_TOKEN_TTL": "5m",
			"OCV_AGENT_TOKEN_TTL": "1h"}, func(t *testing.T, c ProcessConfig) {
			s := c.Server()
			require.Equal(t, "https://vault.example", s.Issuer)
			require.Equal(t, wire.TokenLifetimes{User: 5 * time.Minute, Agent: time.Hour}, s.TokenLifetimes)
		}, nil},
		"ok legacy issuers from the file": {legacy, nil, func(t *testing.T, c ProcessConfig) {
			require.Equal(t, "https://vault.example", c.Server().Issuer)
			require.Equal(t, []string{"https://old.example"}, c.Server().LegacyIssuers)
			require.Equal(t, 10*time.Minute, c.Server().TokenLifetimes.User)
		}, nil},
		"ok two proxy identity keys": {"", map[string]string{"OCV_PROXY_IDENTITY_PUBKEYS": " ed25519:" + b64(testPeerKey) + ", " + b64(otherPeerKey())},
			func(t *testing.T, c ProcessConfig) {
				require.Equal(t, []ed25519.PublicKey{testPeerKey, otherPeerKey()}, c.Server().ProxyIdentityKeys)
			}, nil},
		"fail no proxy identity key":  {"", map[string]string{"OCV_PROXY_IDENTITY_PUBKEYS": ""}, nil, ErrInvalidConfig},
		"fail bad proxy identity key": {"", map[string]string{"OCV_PROXY_IDENTITY_PUBKEYS": "ed25519:AAAA"}, nil, ErrInvalidConfig},
		"ok floor refresh from the file": {floor, nil, func(t *testing.T, c ProcessConfig) {
			require.Equal(t, 5*time.Second, c.Server().FloorRefresh)
		}, nil},
		"ok floor refresh env over file": {floor, map[string]string{"OCV_FLOOR_REFRESH": "250ms"}, func(t *testing.T, c ProcessConfig) {
			require.Equal(t, 250*time.Millisecond, c.Server().FloorRefresh)
		}, nil},
		"fail floor refresh zero":           {noFloor, nil, nil, ErrInvalidConfig},
		"fail floor refresh too long":       {"", map[string]string{"OCV_FLOOR_REFRESH": "1h"}, nil, ErrInvalidConfig},
		"fail floor refresh not a duration": {"", map[string]string{"OCV_FLOOR_REFRESH": "1"}, nil, ErrInvalidConfig},
		"fail token ttl not a duration":     {"", map[string]string{"OCV_TOKEN_TTL": "900"}, nil, ErrInvalidConfig},
		"fail token ttl too long":           {"", map[string]string{"OCV_TOKEN_TTL": "25h"}, nil, ErrInvalidConfig},
		"fail agent token ttl too short":    {"", map[string]string{"OCV_AGENT_TOKEN_TTL": "30s"}, nil, ErrInvalidConfig},
		"fail public url not https":         {"", map[string]string{"OCV_PUBLIC_URL": "http://127.0.0.1:8443"}, nil, ErrInvalidConfig},
		"fail empty public url":             {"", map[string]string{"OCV_PUBLIC_URL": ""}, nil, ErrInvalidConfig},
		"fail caller token not a bool":      {"", map[string]string{"OCV_ENCLAVE_REQUIRE_CALLER_TOKEN": "sometimes"}, nil, ErrInvalidConfig},
		"fail nitro without caller tokens":  {good, map[string]string{"OCV_ENCLAVE_REQUIRE_CALLER_TOKEN": "0"}, nil, ErrInvalidConfig},
		// A PIN has no place in the config file: only a PIN file does.
		"fail unknown key":      {unknown, nil, nil, ErrInvalidConfig},
		"fail missing file":     {filepath.Join(dir, "none.yaml"), nil, nil, os.ErrNotExist},
		"fail env not a number": {"", map[string]string{"OCV_ENCLAVE_DEK_CACHE_SIZE": "many"}, nil, ErrInvalidConfig},
		"fail attester kind":    {"", map[string]string{"OCV_ENCLAVE_ATTESTER": "tpm"}, nil, ErrInvalidConfig},
		"fail sim without dir":  {"", map[string]string{"OCV_ENCLAVE_ATTESTATION_DIR": ""}, nil, ErrInvalidConfig},
		"fail empty module":     {"", map[string]string{"OCV_ENCLAVE_PKCS11_MODULE": ""}, nil, ErrInvalidConfig},
		"fail long token label": {"", map[string]string{"OCV_ENCLAVE_TOKEN_LABEL": "0123456789012345678901234567890123"}, nil, ErrInvalidConfig},
		"fail log level":        {"", map[string]string{"OCV_ENCLAVE_LOG_LEVEL": "loud"}, nil, ErrInvalidConfig},
		"fail listen":           {"", map[string]string{"OCV_ENCLAVE_LISTEN": "127.0.0.1:9"}, nil, ErrInvalidConfig},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c, err := LoadProcessConfig(tc.path, envOf(tc.env))
			require.ErrorIs(t, err, tc.wantErr)
			if tc.check != nil {
				tc.check(t, c)
			}
		})
	}
}

func b64(k ed25519.PublicKey) string { return wire.FormatPeerPublicKey(k)[len("ed25519:"):] }

func otherPeerKey() ed25519.PublicKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{8}, ed25519.SeedSize)).Public().(ed25519.PublicKey)
}
