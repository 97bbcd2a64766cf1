package enclave

import (
	"crypto/ed25519"
	"fmt"
	"strings"

	"github.com/opencustody/ocv/enclave/wire"
)

// proxyIdentityKeys parses ProxyIdentityPubkeys.
func (c ProcessConfig) proxyIdentityKeys() ([]ed25519.PublicKey, error) {
	keys := make([]ed25519.PublicKey, 0, len(c.ProxyIdentityPubkeys))
	for i, s := range c.ProxyIdentityPubkeys {
		k, err := wire.ParsePeerPublicKey(s)
		if err != nil {
			return nil, fmt.Errorf("%w: proxy_identity_pubkeys[%d] %w", ErrInvalidConfig, i, err)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// validProxyIdentityKeys is proxyIdentityKeys without the error: Validate
// has refused a key that does not parse (and Config.Validate refuses none).
func (c ProcessConfig) validProxyIdentityKeys() []ed25519.PublicKey {
	keys, err := c.proxyIdentityKeys()
	if err != nil {
		return nil
	}
	return keys
}

// splitPeerKeyList splits a comma-separated environment value, dropping blanks.
func splitPeerKeyList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
