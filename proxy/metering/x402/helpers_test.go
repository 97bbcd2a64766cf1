package x402_test

import (
	"crypto/ecdsa"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/proxy/metering/x402"
	"github.com/opencustody/ocv/proxy/metering/x402/x402test"
)

const payTo = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"

var testNow = time.Unix(1_800_000_000, 0)

func testConfig() x402.PaymentConfig {
	return x402.PaymentConfig{PayTo: payTo, FacilitatorURL: "https://facilitator.test"}.WithDefaults()
}

func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := crypto.GenerateKey()
	require.NoError(t, err)
	return k
}

// signed returns a payload for a (after edit) signed by key.
func signed(t *testing.T, cfg x402.PaymentConfig, key *ecdsa.PrivateKey, edit func(*x402.Authorization)) x402.Payload {
	t.Helper()
	a := x402test.Authorization(cfg, key, testNow)
	if edit != nil {
		edit(&a)
	}
	p, err := x402test.Sign(cfg, key, a)
	require.NoError(t, err)
	return p
}
