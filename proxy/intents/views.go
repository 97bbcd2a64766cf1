package intents

import (
	"encoding/hex"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
)

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// SigningKeyOf is a signing key as the API shows it: public data only.
func SigningKeyOf(k store.SigningKey) api.SigningKey {
	pub := hex.EncodeToString(k.PublicKey)
	if k.Curve == "secp256k1" {
		pub = "0x" + pub
	}
	return api.SigningKey{AgentID: k.AgentID, Chain: k.Chain, Address: k.Address, PublicKey: pub, Curve: k.Curve,
		Version: k.Version, KeyVersion: k.Version, Imported: k.Imported, Status: k.Status, CreatedAt: rfc3339(k.CreatedAt)}
}

// SigningKeyRotatedOf is the answer to a rotation of previous into k.
func SigningKeyRotatedOf(k store.SigningKey, previous int) api.SigningKeyRotated {
	return api.SigningKeyRotated{SigningKey: SigningKeyOf(k), PreviousVersion: previous}
}

// TransactionOf is a transaction record as the API shows it; signed_tx
// only when asked for.
func TransactionOf(t store.AgentTx, withSigned bool) api.Transaction {
	value, _ := new(big.Int).SetString(t.Value, 10)
	if value == nil {
		value = new(big.Int)
	}
	out := api.Transaction{ID: t.ID, AgentID: t.AgentID, Chain: t.Chain, ChainID: t.ChainID, KeyVersion: t.KeyVersion,
		Type: t.TxType, From: t.From, To: t.To, Value: hexutil.EncodeBig(value), Nonce: t.Nonce, TxHash: t.TxHash,
		Status: t.Status, BlockNumber: t.BlockNumber, GasUsed: t.GasUsed, Error: t.Error,
		CreatedAt: rfc3339(t.CreatedAt), UpdatedAt: rfc3339(t.UpdatedAt)}
	if t.TokenAddress != "" {
		amount := t.TokenAmount
		out.TokenAddress, out.TokenAmount = t.TokenAddress, &amount
	}
	if withSigned {
		out.SignedTx = "0x" + hex.EncodeToString(t.SignedTx)
	}
	return out
}

// SignedIntentOf is the answer to a transaction sign intent.
func SignedIntentOf(res TxResult) api.SignedTransactionIntent {
	t := TransactionOf(res.Record, true)
	out := api.SignedTransactionIntent{Transaction: t, SignedTx: t.SignedTx,
		IntentType: wire.IntentTransaction, Hash: hexutil.Encode(res.Signed.Digest)}
	if len(res.Signed.Signature) == 65 {
		out.Signature = hexutil.Encode(res.Signed.Signature)
	}
	return out
}
