package ops

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/opencustody/ocv/chain/evm"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/keyvault"
	"github.com/opencustody/ocv/policy"
)

// evmDecimals is the number of decimals of every EVM chain's native asset.
const evmDecimals = 18

// intent is one sign request as the enclave prepared it: the digest it
// will sign, the facts the guardrails weigh, and for a transaction what is
// needed to assemble it.
type intent struct {
	digest []byte
	facts  policy.TxFacts
	tx     *evm.TxRequest
}

// SignIntent signs a structured request with an agent's key once the
// agent's token, the request and the guardrails allow it. A guardrail
// refusal is an answer (Denied), not an error.
func (h *Handler) SignIntent(ctx context.Context, req *wire.SignIntentRequest) (*wire.SignIntentResponse, error) {
	if req.Chain != "ethereum" {
		return nil, fmt.Errorf("%w: signing for chain family %q is not supported yet", wire.ErrBadRequest, req.Chain)
	}
	c, err := h.authz.verifyToken(ctx, req.Token)
	if err != nil {
		return nil, err
	}
	switch {
	case c.OrgID != req.OrgID:
		return nil, forbidden("token of another organization")
	case c.PrincipalType != policy.PrincipalAgent || c.Subject != req.AgentID:
		return nil, forbidden("only the agent itself may sign with its keys")
	case !c.IntentsAPIEnabled:
		return nil, forbidden("the agent's token does not enable the intents API")
	}
	var sc wire.SignContext
	if err := json.Unmarshal(req.Context, &sc); err != nil {
		return nil, fmt.Errorf("%w: sign context: %w", wire.ErrBadRequest, err)
	}
	g, rules, err := h.authz.loadGuardrails(ctx, req.OrgID, req.AgentID, req.GuardrailSet, req.GuardrailMAC)
	if err != nil {
		return nil, err
	}
	ref, err := signingKeyRef(c.OrgID, req.AgentID, req.Chain, req.KeyVersion)
	if err != nil {
		return nil, err
	}
	signer, err := h.ks.Signer(ctx, ref)
	if err != nil {
		return nil, err // a destroyed or unknown version: NotFound
	}
	pub, ok := signer.Public().(keyvault.Secp256k1Point)
	if !ok {
		return nil, fmt.Errorf("%w: the ethereum key is not secp256k1", wire.ErrInternal)
	}
	in, err := prepareIntent(req.Kind, req.Payload, &sc)
	if err != nil {
		return nil, err
	}
	counters := policy.TxCounters{CountToday: sc.Counters.CountToday, CountTodayChain: sc.Counters.CountTodayChain}
	if sc.Counters.SpentTodayChain != "" {
		spent, ok := new(big.Int).SetString(sc.Counters.SpentTodayChain, 10)
		if !ok || spent.Sign() < 0 {
			return nil, fmt.Errorf("%w: spent_today_chain is not a decimal", wire.ErrBadRequest)
		}
		counters.SpentTodayChain = spent
	}
	if sc.Counters.FeesTodayChain != "" {
		fees, ok := new(big.Int).SetString(sc.Counters.FeesTodayChain, 10)
		if !ok || fees.Sign() < 0 {
			return nil, fmt.Errorf("%w: fees_today_chain is not a decimal", wire.ErrBadRequest)
		}
		counters.FeesTodayChain = fees
	}
	if d := policy.EvaluateTx(g, rules, in.facts, counters, h.authz.now()); !d.Allowed {
		return denied(d.Guardrail, d.Detail), nil
	}
	if in.tx == nil {
		sig, err := signDigest(ctx, signer, in.digest, pub)
		if err != nil {
			return nil, err
		}
		return &wire.SignIntentResponse{Signature: sig, Digest: in.digest}, nil
	}
	return signTransaction(ctx, signer, pub, in.tx, in.facts.MaxFee)
}

func denied(guardrail, detail string) *wire.SignIntentResponse {
	return &wire.SignIntentResponse{Denied: guardrail, Detail: detail}
}

// txRules parses the rules the proxy sent.
func txRules(in []wire.SignRule) ([]policy.TxRule, error) {
	out := make([]policy.TxRule, 0, len(in))
	for _, r := range in {
		conds, err := policy.ParseTxConditions(r.Conditions)
		if err != nil {
			return nil, err
		}
		rule := policy.TxRule{Effect: policy.Effect(r.Effect), Priority: r.Priority, Conditions: conds}
		if rule.Effect != policy.EffectAllow && rule.Effect != policy.EffectDeny {
			return nil, fmt.Errorf("effect %q", r.Effect)
		}
		if r.ExpiresAt != nil {
			rule.ExpiresAt = *r.ExpiresAt
		}
		out = append(out, rule)
	}
	return out, nil
}

// prepareIntent computes the digest and the facts of a request from its
// structured payload. Nothing here trusts a digest from the proxy except
// for IntentDigest, which the guardrails gate on raw_signing_enabled.
func prepareIntent(kind string, payload []byte, sc *wire.SignContext) (*intent, error) {
	in := &intent{facts: policy.TxFacts{IntentType: kind, Chain: sc.Chain, ChainID: sc.ChainID, Decimals: evmDecimals}}
	switch kind {
	case wire.IntentPersonalSign:
		in.digest = evm.PersonalMessageHash(payload)
	case wire.IntentDigest:
		if len(payload) != 32 {
			return nil, fmt.Errorf("%w: a digest is 32 bytes", wire.ErrBadRequest)
		}
		in.digest = payload
	case wire.IntentTypedData:
		digest, td, err := evm.TypedDataHash(payload)
		if err != nil {
			return nil, fmt.Errorf("%w: typed data: %w", wire.ErrBadRequest, err)
		}
		in.digest = digest
		typedDataFacts(&in.facts, td)
	case wire.IntentTransaction:
		r, err := evm.ParseTxRequest(payload)
		if err != nil {
			return nil, fmt.Errorf("%w: transaction: %w", wire.ErrBadRequest, err)
		}
		if r.ChainID != sc.ChainID {
			return nil, fmt.Errorf("%w: the transaction's chain id is not the chain's", wire.ErrBadRequest)
		}
		in.tx = &r
		if err := transactionFacts(&in.facts, &r, sc.TokenKnown); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%w: intent type %q", wire.ErrBadRequest, kind)
	}
	return in, nil
}

// transactionFacts fills what the guardrails weigh from a transaction: its
// recipient, value and delegations, the effects of its calldata (through
// every wrapper), and its maximum fee.
func transactionFacts(f *policy.TxFacts, r *evm.TxRequest, tokenKnown bool) error {
	fee, err := maxFee(r)
	if err != nil {
		return fmt.Errorf("%w: transaction fees: %w", wire.ErrBadRequest, err)
	}
	f.MaxFee = fee
	f.To = strings.ToLower(r.To)
	value := new(big.Int)
	if r.Value != "" {
		if value, err = evm.ParseQuantity(r.Value); err != nil {
			f.DecodeFailed = true
			return nil
		}
	}
	f.Value = value
	for _, a := range r.AuthorizationList {
		f.Delegations = append(f.Delegations, strings.ToLower(a.Address))
	}
	data, err := hexData(r.Data)
	if err != nil {
		f.DecodeFailed = true
		return nil
	}
	call := evm.DecodeCall(data)
	f.FunctionSelector, f.FunctionName, f.DecodeFailed = call.Selector, call.Function, call.DecodeFailed
	if call.TokenAmount != nil && r.To != "" {
		f.Token, f.TokenKnown = f.To, tokenKnown
		f.TokenRecipient = strings.ToLower(call.TokenRecipient.Hex())
		f.TokenAmount = call.TokenAmount
	}
	knownTo := ""
	if tokenKnown {
		knownTo = f.To
	}
	if r.To == "" {
		// A contract creation runs init code, not a call: it can move only
		// its value, and with a to-allowlist set it is refused (no
		// recipient is listed).
		return nil
	}
	f.Effects = policyEffects(evm.CallEffects(common.HexToAddress(r.To), data), knownTo)
	if f.FunctionName == "" {
		// Name the top-level call after its decoded effect (a wrapper or an
		// admin call the token decoder does not know).
		for _, e := range f.Effects {
			if e.Depth == 0 && e.Selector == f.FunctionSelector && e.Function != "" && !e.DecodeFailed {
				f.FunctionName = e.Function
				break
			}
		}
	}
	return nil
}

func hexData(s string) ([]byte, error) {
	if s == "" {
		return nil, nil
	}
	return common.ParseHexOrString(s)
}

// signDigest has the HSM sign digest and returns r‖s‖v, low-S, after
// checking the signature recovers pub.
func signDigest(ctx context.Context, signer keyvault.DigestSigner, digest []byte, pub keyvault.Secp256k1Point) ([]byte, error) {
	raw, err := signer.SignDigest(ctx, digest)
	if err != nil {
		return nil, err
	}
	sig, err := evm.RecoverableSignature(digest, raw, pub)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errBadSignature, err)
	}
	return sig, nil
}

// signTransaction signs the authorizations the agent's key is to sign,
// then the transaction, and assembles it.
// The transaction's maximum fee may not exceed judgedFee, the one the
// guardrails weighed.
func signTransaction(ctx context.Context, signer keyvault.DigestSigner, pub keyvault.Secp256k1Point, r *evm.TxRequest, judgedFee *big.Int) (*wire.SignIntentResponse, error) {
	for _, i := range r.UnsignedAuthorizations() {
		a, err := r.AuthorizationList[i].SetCode()
		if err != nil {
			return nil, fmt.Errorf("%w: authorization %d: %w", wire.ErrBadRequest, i, err)
		}
		h := evm.AuthorizationHash(a)
		sig, err := signDigest(ctx, signer, h[:], pub)
		if err != nil {
			return nil, err
		}
		if err := r.SetAuthorizationSignature(i, sig); err != nil {
			return nil, fmt.Errorf("%w: authorization %d: %w", wire.ErrInternal, i, err)
		}
	}
	tx, err := evm.BuildTx(*r)
	if err != nil {
		return nil, fmt.Errorf("%w: transaction: %w", wire.ErrBadRequest, err)
	}
	if err := checkBuiltFee(tx, judgedFee); err != nil {
		return nil, err
	}
	h, err := evm.SigningHash(tx)
	if err != nil {
		return nil, fmt.Errorf("%w: transaction: %w", wire.ErrBadRequest, err)
	}
	sig, err := signDigest(ctx, signer, h[:], pub)
	if err != nil {
		return nil, err
	}
	_, raw, txHash, err := evm.AssembleTx(tx, sig)
	if err != nil {
		return nil, fmt.Errorf("%w: assembling transaction: %w", wire.ErrInternal, err)
	}
	return &wire.SignIntentResponse{Signature: sig, Digest: h[:], SignedTx: raw, TxHash: txHash[:]}, nil
}
