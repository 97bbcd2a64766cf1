package intents

import (
	"context"
	"encoding/hex"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/chain/evm"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
)

// SignMessage signs a personal_sign (EIP-191), typed_data (EIP-712) or
// eip712_digest intent (kind, "digest" already read as eip712_digest) of
// the signing party, whose caller's access token is token. The enclave
// computes what it signs from the structured request and weighs the
// agent's guardrails first.
func (s *Service) SignMessage(ctx context.Context, token string, party store.SigningParty, kind string,
	in api.SignIntentRequest) (_ api.SignatureResult, err error) {
	chain, err := s.signChain(ctx, FirstRaw(in.ChainID, in.Chain))
	if err != nil {
		return api.SignatureResult{}, err
	}
	var payload []byte
	switch kind {
	case wire.IntentPersonalSign:
		if in.Message == nil {
			return api.SignatureResult{}, problem.BadRequest(problem.TypeInvalidRequest, "message is required for personal_sign")
		}
		payload = evm.DecodeMessage(*in.Message)
	case wire.IntentTypedData:
		if len(in.TypedData) == 0 {
			return api.SignatureResult{}, problem.BadRequest(problem.TypeInvalidRequest, "typed_data is required for typed_data")
		}
		payload = in.TypedData
	case wire.IntentDigest:
		if in.Hash == nil {
			return api.SignatureResult{}, problem.BadRequest(problem.TypeInvalidRequest, "hash is required for eip712_digest")
		}
		b, err := hexutil.Decode(*in.Hash)
		if err != nil || len(b) != 32 {
			return api.SignatureResult{}, problem.BadRequest(problem.TypeInvalidRequest, "hash must be 32 bytes of 0x-prefixed hex")
		}
		payload = b
	default:
		return api.SignatureResult{}, problem.BadRequest(problem.TypeInvalidRequest,
			"intent_type must be personal_sign, typed_data, transaction, eip712_digest or digest")
	}
	entry := auditlog.FromContext(ctx)
	entry.SetResource("agent/" + party.Agent.ID + "/signing-keys/ethereum")
	if kind == wire.IntentDigest {
		entry.Event.Action = "signing_key.raw_digest_sign"
	}
	req := signRequest{party: party, chain: chain, kind: kind, payload: payload}
	if kind == wire.IntentTypedData {
		release, err := s.reserveTypedDataSpend(ctx, &req)
		if err != nil {
			return api.SignatureResult{}, err
		}
		defer func() { release(err != nil) }()
	}
	resp, err := s.enclaveSign(ctx, token, req)
	if err != nil {
		return api.SignatureResult{}, err
	}
	return signatureOf(kind, chain, party.Key, resp), nil
}

// reserveTypedDataSpend counts the native value a typed-data message lets
// leave the signer's account (typedDataSpend) on the day's counters, as
// one transaction within the daily limits, and puts the counters in req
// for the enclave. release gives the reservation back when the signature
// failed.
func (s *Service) reserveTypedDataSpend(ctx context.Context, req *signRequest) (release func(failed bool), err error) {
	value := typedDataSpend(req.payload)
	if value.Sign() == 0 {
		return func(bool) {}, nil
	}
	a := req.party.Agent
	g, err := guardrailsOf(a)
	if err != nil {
		return nil, err
	}
	now := s.now()
	if req.counters, err = s.reserveDay(ctx, a, g, req.chain.ID, value, new(big.Int), now); err != nil {
		return nil, err
	}
	return func(failed bool) {
		if !failed {
			return
		}
		bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = s.txs.ReleaseTxFee(bg, a.OrgID, a.ID, req.chain.ID, now, value, new(big.Int))
	}, nil
}

// signatureOf is the answer to a message, typed-data or digest intent.
func signatureOf(kind string, chain store.Chain, key store.SigningKey, resp wire.SignIntentResponse) api.SignatureResult {
	out := api.SignatureResult{IntentType: kind, Chain: chain.ID, ChainID: chain.ChainID, Address: key.Address,
		KeyVersion: key.Version, Hash: hexutil.Encode(resp.Digest)}
	if sig := resp.Signature; len(sig) == 65 {
		v := int(sig[64]) + 27
		full := append(append([]byte{}, sig[:64]...), byte(v))
		out.Signature, out.R, out.S, out.V = hexutil.Encode(full), hexutil.Encode(sig[:32]), hexutil.Encode(sig[32:64]), v
	}
	return out
}

// CheckSigningKeyPath validates the optional signing_key_path: one of the
// prefixes keys/, wallets/, agents/{id}/keys/, agents/{id}/chains/, and a
// UUID anywhere in it must be the calling agent's id.
func CheckSigningKeyPath(p *string, agentID string) error {
	if p == nil {
		return nil
	}
	path := *p
	bad := problem.BadRequest(problem.TypeInvalidRequest,
		"signing_key_path must start with keys/, wallets/, agents/{id}/keys/ or agents/{id}/chains/")
	if len(path) > 512 || strings.ContainsAny(path, "\\\x00") || strings.Contains(path, "..") {
		return bad
	}
	segs := strings.Split(path, "/")
	ok := false
	switch {
	case len(segs) >= 2 && (segs[0] == "keys" || segs[0] == "wallets") && segs[1] != "":
		ok = true
	case len(segs) >= 4 && segs[0] == "agents" && (segs[2] == "keys" || segs[2] == "chains") && segs[3] != "":
		ok = true
	}
	if !ok {
		return bad
	}
	for _, s := range segs {
		if looksLikeUUID(s) && !strings.EqualFold(s, agentID) {
			return problem.New(http.StatusForbidden, problem.TypeForbidden, "signing_key_path names another agent")
		}
	}
	return nil
}

func looksLikeUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	_, err := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
	return err == nil && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-'
}
