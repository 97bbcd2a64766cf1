package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// The signing scenarios drive the Intents API with the agent token:
// personalsign signs an EIP-191 message, txsign an EIP-1559 transaction on
// Base with every field given, so that no RPC node is needed. Their
// throughput is read against the hsmraw scenario's (ratio.go).

// txSignRequest is the body of POST /v1/agents/{id}/transactions/sign.
type txSignRequest struct {
	ChainID              string `json:"chain_id"`
	To                   string `json:"to"`
	Value                string `json:"value"`
	Nonce                uint64 `json:"nonce"`
	Gas                  uint64 `json:"gas"`
	MaxFeePerGas         string `json:"max_fee_per_gas"`
	MaxPriorityFeePerGas string `json:"max_priority_fee_per_gas"`
}

// txSignBody is the txsign body with the given nonce: 1 wei to a fixed
// address on Base, 21,000 gas at 1 gwei.
func txSignBody(nonce uint64) ([]byte, error) {
	b, err := json.Marshal(txSignRequest{
		ChainID: "base", To: "0x00000000000000000000000000000000000000b2", Value: "0x1", Nonce: nonce,
		Gas: 21000, MaxFeePerGas: "0x3b9aca00", MaxPriorityFeePerGas: "0x1",
	})
	if err != nil {
		return nil, fmt.Errorf("encoding transaction: %w", err)
	}
	return b, nil
}

// personalSignBody is the personalsign body for message number n.
func personalSignBody(n uint64) ([]byte, error) {
	b, err := json.Marshal(map[string]string{"intent_type": "personal_sign", "message": "bench " + strconv.FormatUint(n, 10)})
	if err != nil {
		return nil, fmt.Errorf("encoding message: %w", err)
	}
	return b, nil
}

// isHexString reports whether v is "0x" followed by at least minBytes
// bytes of hex.
func isHexString(v string, minBytes int) bool {
	h, ok := strings.CutPrefix(v, "0x")
	if !ok || len(h)%2 != 0 || len(h) < 2*minBytes {
		return false
	}
	return !strings.ContainsFunc(h, func(r rune) bool { return !strings.ContainsRune("0123456789abcdefABCDEF", r) })
}

// verifyPersonalSign accepts an answer carrying a 65-byte signature.
func verifyPersonalSign(body []byte) bool {
	var got struct {
		Signature string `json:"signature"`
	}
	return json.Unmarshal(body, &got) == nil && len(got.Signature) == 2+2*65 && isHexString(got.Signature, 65)
}

// verifyTxSign accepts an answer carrying a signed transaction: hex at
// least as long as the 65-byte signature it holds.
func verifyTxSign(body []byte) bool {
	var got struct {
		SignedTx string `json:"signed_tx"`
	}
	return json.Unmarshal(body, &got) == nil && isHexString(got.SignedTx, 65)
}

// post builds a JSON POST of body to url with the agent token.
func (s *agentSigner) post(ctx context.Context, url string, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("building request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+*s.token.Load())
	return req, nil
}

// personalSign is the personalsign scenario: POST /v1/agents/{id}/sign with
// a distinct message per request.
func (s *agentSigner) personalSign() scenario {
	url := s.c.base + s.path("/sign")
	return scenario{
		name: "personalsign",
		request: func(ctx context.Context, _, _, _ int) (*http.Request, error) {
			body, err := personalSignBody(s.msg.Add(1) - 1)
			if err != nil {
				return nil, err
			}
			return s.post(ctx, url, body)
		},
		verify: verifyPersonalSign,
	}
}

// txSign is the txsign scenario: POST /v1/agents/{id}/transactions/sign
// with a distinct nonce per request.
func (s *agentSigner) txSign() scenario {
	url := s.c.base + s.path("/transactions/sign")
	return scenario{
		name: "txsign",
		request: func(ctx context.Context, _, _, _ int) (*http.Request, error) {
			body, err := txSignBody(s.nonce.Add(1) - 1)
			if err != nil {
				return nil, err
			}
			return s.post(ctx, url, body)
		},
		verify: verifyTxSign,
	}
}
