// Package x402test signs x402 payments with test keys and fakes a
// facilitator, for tests of x402 and of the servers that accept payments.
//
// Trust level: test-only (never imported by production code).
package x402test

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/opencustody/ocv/proxy/metering/x402"
)

// Sign signs a as key's EIP-3009 authorization under cfg's asset domain
// and returns the X-PAYMENT payload, with v as 27/28.
func Sign(cfg x402.PaymentConfig, key *ecdsa.PrivateKey, a x402.Authorization) (x402.Payload, error) {
	hash, err := cfg.TypedDataHash(a)
	if err != nil {
		return x402.Payload{}, fmt.Errorf("hashing authorization: %w", err)
	}
	sig, err := crypto.Sign(hash, key)
	if err != nil {
		return x402.Payload{}, fmt.Errorf("signing authorization: %w", err)
	}
	sig[64] += 27
	return x402.Payload{
		X402Version: x402.Version, Scheme: x402.SchemeExact, Network: cfg.Network,
		Payload: x402.ExactPayload{Signature: "0x" + hex.EncodeToString(sig), Authorization: a},
	}, nil
}

// Authorization returns a fresh authorization from key's address paying
// cfg's price to cfg's payee, valid from now-60s for cfg.MaxTimeoutSeconds,
// with a random nonce.
func Authorization(cfg x402.PaymentConfig, key *ecdsa.PrivateKey, now time.Time) x402.Authorization {
	n := make([]byte, 32)
	_, _ = rand.Read(n)
	return x402.Authorization{
		From: crypto.PubkeyToAddress(key.PublicKey).Hex(), To: cfg.PayTo, Value: cfg.PriceAtomic,
		ValidAfter:  strconv.FormatInt(now.Unix()-60, 10),
		ValidBefore: strconv.FormatInt(now.Unix()+cfg.MaxTimeoutSeconds, 10),
		Nonce:       "0x" + hex.EncodeToString(n),
	}
}

// Header returns a valid X-PAYMENT header value for cfg at now, signed by
// key with a fresh nonce.
func Header(cfg x402.PaymentConfig, key *ecdsa.PrivateKey, now time.Time) (string, error) {
	p, err := Sign(cfg, key, Authorization(cfg, key, now))
	if err != nil {
		return "", err
	}
	return p.Encode(), nil
}

// Facilitator is an in-memory facilitator: it records settle calls and
// succeeds unless Fail is set.
type Facilitator struct {
	mu    sync.Mutex
	Fail  bool
	calls []x402.Payload
}

// Settle implements x402.Facilitator.
func (f *Facilitator) Settle(_ context.Context, p x402.Payload, req x402.Requirements) (x402.SettleResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, p)
	if f.Fail {
		return x402.SettleResponse{Success: false, ErrorReason: "insufficient_funds", Network: req.Network},
			fmt.Errorf("fake settle: %w", x402.ErrSettlement)
	}
	return x402.SettleResponse{Success: true, Transaction: "0x" + fmt.Sprintf("%064x", len(f.calls)),
		Network: req.Network, Payer: p.Payload.Authorization.From}, nil
}

// Calls returns how many payments were settled (or attempted).
func (f *Facilitator) Calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

var _ x402.Facilitator = (*Facilitator)(nil)
