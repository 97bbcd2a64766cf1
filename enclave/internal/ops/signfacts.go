package ops

import (
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/opencustody/ocv/chain/evm"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/policy"
)

// errFeeMismatch reports a built transaction that could pay more in fees
// than the guardrails were shown; it cannot happen unless the request
// parser and the builder disagree, and nothing is signed then.
var errFeeMismatch = errors.New("the built transaction's maximum fee exceeds the one judged")

// addrText is the lowercase hex of a, "" for the zero address (an open
// counterparty, the native asset, or the signer).
func addrText(a common.Address) string {
	if a == (common.Address{}) {
		return ""
	}
	return strings.ToLower(a.Hex())
}

// policyEffects turns the chain package's effects into the guardrails'
// facts. A token is known only when it is the called contract to and the
// proxy found that contract in the token registry (knownTo); every other
// token is unknown, which tx_known_tokens_only refuses.
func policyEffects(effects []evm.Effect, knownTo string) []policy.TxEffect {
	if effects == nil {
		return nil
	}
	out := make([]policy.TxEffect, 0, len(effects))
	for _, e := range effects {
		pe := policy.TxEffect{Kind: string(e.Kind), Function: e.Function, Selector: strings.ToLower(e.Selector),
			Target: addrText(e.Target), Token: addrText(e.Token), From: addrText(e.From),
			Counterparty: addrText(e.Counterparty), Unlimited: e.Unlimited || evm.IsUnlimitedAmount(e.Amount),
			Approved: e.Approved, Depth: e.Depth, DecodeFailed: e.DecodeFailed}
		if e.Amount != nil {
			pe.Amount = new(big.Int).Set(e.Amount)
		}
		pe.TokenKnown = knownTo != "" && pe.Token == knownTo
		switch pe.Kind {
		case policy.TxEffectNativeTransfer, policy.TxEffectTokenTransfer, policy.TxEffectApprove,
			policy.TxEffectApprovalForAll, policy.TxEffectPrivileged, policy.TxEffectCall:
		default:
			// A kind the guardrails do not know: judge it as a call that
			// could not be decoded, which only an explicit rule admits.
			pe.Kind, pe.DecodeFailed = policy.TxEffectCall, true
		}
		out = append(out, pe)
	}
	return out
}

// typedDataFacts fills the facts of typed data: its domain, its standard
// and that standard's effects.
func typedDataFacts(f *policy.TxFacts, td apitypes.TypedData) {
	dom := evm.Domain(td)
	tf := &policy.TypedDataFacts{DomainName: dom.Name, DomainVersion: dom.Version}
	if dom.ChainID != nil {
		tf.DomainChainID = dom.ChainID.String()
	}
	tf.VerifyingContract = addrText(dom.VerifyingContract)
	standard, effects, err := evm.TypedDataEffects(td)
	tf.Standard = standard
	if err != nil {
		// A known standard whose message is malformed: never judged as
		// harmless.
		tf.DecodeFailed = true
		if tf.Standard == "" {
			tf.Standard = "unknown"
		}
	}
	f.TypedData = tf
	f.Effects = nameMessageEffects(policyEffects(effects, ""), standard)
}

// nameMessageEffects names what a typed-data message itself lets happen
// (an effect without function or selector) after its standard, so that
// function_name_in can name it; inner calls keep their names.
func nameMessageEffects(effects []policy.TxEffect, standard string) []policy.TxEffect {
	for i := range effects {
		if e := &effects[i]; e.Function == "" && e.Selector == "" {
			e.Function = standard
		}
	}
	return effects
}

// maxFee is the most a transaction request can pay in fees: gas limit ×
// (max fee per gas, or gas price), plus blob gas × max fee per blob gas.
// Absent fields count as zero here; BuildTx refuses such a request later.
func maxFee(r *evm.TxRequest) (*big.Int, error) {
	fee := new(big.Int)
	perGas := new(big.Int)
	for _, s := range []string{r.GasPrice, r.MaxFeePerGas} {
		if s == "" {
			continue
		}
		v, err := evm.ParseQuantity(s)
		if err != nil {
			return nil, err
		}
		if v.Cmp(perGas) > 0 {
			perGas = v
		}
	}
	if r.Gas != nil {
		fee.Mul(new(big.Int).SetUint64(*r.Gas), perGas)
	}
	if r.MaxFeePerBlobGas != "" {
		v, err := evm.ParseQuantity(r.MaxFeePerBlobGas)
		if err != nil {
			return nil, err
		}
		blobGas := new(big.Int).SetUint64(uint64(len(r.BlobVersionedHashes)) * params.BlobTxBlobGasPerBlob)
		fee.Add(fee, blobGas.Mul(blobGas, v))
	}
	return fee, nil
}

// builtMaxFee is the maximum fee of a built transaction, computed the way
// maxFee computes it from the request.
func builtMaxFee(tx *types.Transaction) *big.Int {
	fee := new(big.Int).Mul(new(big.Int).SetUint64(tx.Gas()), tx.GasFeeCap())
	if feeCap := tx.BlobGasFeeCap(); feeCap != nil {
		fee.Add(fee, new(big.Int).Mul(new(big.Int).SetUint64(tx.BlobGas()), feeCap))
	}
	return fee
}

// checkBuiltFee refuses to sign a built transaction whose maximum fee is
// above the one the guardrails judged.
func checkBuiltFee(tx *types.Transaction, judged *big.Int) error {
	if judged == nil || builtMaxFee(tx).Cmp(judged) > 0 {
		return fmt.Errorf("%w: %w", wire.ErrInternal, errFeeMismatch)
	}
	return nil
}
