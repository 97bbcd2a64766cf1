package api

import (
	"bytes"
	"encoding/json"
)

// The Intents API: agents' signing keys, sign intents, EVM transactions,
// their simulation and the keys' balances.

// SigningKeyCreate is the body of POST /v1/agents/{id}/signing-keys.
type SigningKeyCreate struct {
	Chain *string `json:"chain"`
}

// SigningKeyImport is the body of POST
// /v1/agents/{id}/signing-keys/{chain}/import.
type SigningKeyImport struct {
	PrivateKey *string `json:"private_key"`
}

// SigningKey is an agent's signing key for one chain family: public data
// only.
type SigningKey struct {
	AgentID    string `json:"agent_id"`
	Chain      string `json:"chain"`
	Address    string `json:"address"`
	PublicKey  string `json:"public_key"`
	Curve      string `json:"curve"`
	Version    int    `json:"version"`
	KeyVersion int    `json:"key_version"`
	Imported   bool   `json:"imported"`
	Status     string `json:"status"`
	CreatedAt  string `json:"created_at"`
}

// SigningKeyRotated is the answer to a rotation: the new key and the
// version it replaced.
type SigningKeyRotated struct {
	SigningKey
	PreviousVersion int `json:"previous_version"`
}

// NativeBalance is the balance of a chain's native asset.
type NativeBalance struct {
	Balance   string `json:"balance"`
	Formatted string `json:"formatted"`
	Decimals  int    `json:"decimals"`
}

// TokenBalance is the balance of one ERC-20 token; symbol, decimals and
// formatted only for tokens of the registry.
type TokenBalance struct {
	ContractAddress string  `json:"contract_address"`
	Balance         string  `json:"balance"`
	Symbol          *string `json:"symbol,omitempty"`
	Decimals        *int    `json:"decimals,omitempty"`
	Formatted       *string `json:"formatted,omitempty"`
}

// Balance is the answer of GET /v1/agents/{id}/signing-keys/{chain}/balance.
type Balance struct {
	Chain   string         `json:"chain"`
	ChainID int64          `json:"chain_id"`
	Address string         `json:"address"`
	Native  NativeBalance  `json:"native"`
	Tokens  []TokenBalance `json:"tokens"`
}

// SignIntentRequest is the body of POST /v1/agents/{id}/sign. Chain
// selectors and the transaction stay raw: the proxy reads them strictly.
type SignIntentRequest struct {
	IntentType     string          `json:"intent_type"`
	Chain          json.RawMessage `json:"chain,omitempty"`
	ChainID        json.RawMessage `json:"chain_id,omitempty"`
	Message        *string         `json:"message,omitempty"`
	TypedData      json.RawMessage `json:"typed_data,omitempty"`
	Hash           *string         `json:"hash,omitempty"`
	Transaction    json.RawMessage `json:"transaction,omitempty"`
	SigningKeyPath *string         `json:"signing_key_path,omitempty"`
}

// SignatureResult is the signature of a personal_sign, typed_data or
// eip712_digest intent; signature, r, s and v when the enclave returned a
// 65-byte signature.
type SignatureResult struct {
	IntentType string `json:"intent_type"`
	Chain      string `json:"chain"`
	ChainID    int64  `json:"chain_id"`
	Address    string `json:"address"`
	KeyVersion int    `json:"key_version"`
	Hash       string `json:"hash"`
	Signature  string `json:"signature,omitempty"`
	R          string `json:"r,omitempty"`
	S          string `json:"s,omitempty"`
	V          int    `json:"v,omitempty"`
}

// Quantity is an amount, a JSON string ("0x" hex or decimal) or number,
// kept as its text.
type Quantity string

// UnmarshalJSON implements json.Unmarshaler.
func (q *Quantity) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*q = Quantity(s)
		return nil
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&n); err != nil {
		return err
	}
	*q = Quantity(n.String())
	return nil
}

// AccessTuple is one entry of an EIP-2930 access list.
type AccessTuple struct {
	Address     string   `json:"address"`
	StorageKeys []string `json:"storage_keys"`
}

// Authorization is one EIP-7702 authorization: without y_parity, r and s
// the agent's key signs it; with all three it carries another signature.
type Authorization struct {
	ChainID uint64 `json:"chain_id"`
	Address string `json:"address"`
	Nonce   uint64 `json:"nonce"`
	YParity *uint8 `json:"y_parity,omitempty"`
	R       string `json:"r,omitempty"`
	S       string `json:"s,omitempty"`
}

// TransactionRequest is an EVM transaction request (EIP-2718 types 0 to
// 4). Fields of other chains' requests are named so that they get a clear
// 400 rather than an unknown-field error.
type TransactionRequest struct {
	ChainID json.RawMessage `json:"chain_id,omitempty"`
	Chain   json.RawMessage `json:"chain,omitempty"`
	Type    *uint8          `json:"type,omitempty"`
	To      string          `json:"to,omitempty"`
	Value   Quantity        `json:"value"`
	Data    string          `json:"data,omitempty"`
	Gas     *uint64         `json:"gas,omitempty"`
	// GasLimit is an alias of Gas.
	GasLimit             *uint64         `json:"gas_limit,omitempty"`
	GasPrice             Quantity        `json:"gas_price,omitempty"`
	MaxFeePerGas         Quantity        `json:"max_fee_per_gas,omitempty"`
	MaxPriorityFeePerGas Quantity        `json:"max_priority_fee_per_gas,omitempty"`
	MaxFeePerBlobGas     Quantity        `json:"max_fee_per_blob_gas,omitempty"`
	Nonce                *uint64         `json:"nonce,omitempty"`
	AccessList           []AccessTuple   `json:"access_list,omitempty"`
	BlobVersionedHashes  []string        `json:"blob_versioned_hashes,omitempty"`
	AuthorizationList    []Authorization `json:"authorization_list,omitempty"`
	SimulateFirst        bool            `json:"simulate_first,omitempty"`
	SigningKeyPath       *string         `json:"signing_key_path,omitempty"`
	TokenMint            string          `json:"token_mint,omitempty"`
	TokenDecimals        *int            `json:"token_decimals,omitempty"`
	TreasuryID           *string         `json:"treasury_id,omitempty"`
	Mode                 *string         `json:"mode,omitempty"`

	DestinationTag     json.RawMessage `json:"destination_tag,omitempty"`
	Memo               json.RawMessage `json:"memo,omitempty"`
	FeeRateSatPerVbyte json.RawMessage `json:"fee_rate_sat_per_vbyte,omitempty"`
	FeeLimitSun        json.RawMessage `json:"fee_limit_sun,omitempty"`
	TTL                json.RawMessage `json:"ttl,omitempty"`
	XRPLTxJSON         json.RawMessage `json:"xrpl_tx_json,omitempty"`
}

// Transaction is a transaction the agent's key signed, as recorded;
// token_address and token_amount for ERC-20 transfers only, signed_tx
// only when asked for.
type Transaction struct {
	ID           string  `json:"id"`
	AgentID      string  `json:"agent_id"`
	Chain        string  `json:"chain"`
	ChainID      int64   `json:"chain_id"`
	KeyVersion   int     `json:"key_version"`
	Type         int     `json:"type"`
	From         string  `json:"from"`
	To           string  `json:"to"`
	Value        string  `json:"value"`
	Nonce        int64   `json:"nonce"`
	TxHash       string  `json:"tx_hash"`
	Status       string  `json:"status"`
	BlockNumber  *int64  `json:"block_number,omitempty"`
	GasUsed      *int64  `json:"gas_used,omitempty"`
	TokenAddress string  `json:"token_address,omitempty"`
	TokenAmount  *string `json:"token_amount,omitempty"`
	Error        string  `json:"error,omitempty"`
	SignedTx     string  `json:"signed_tx,omitempty"`
	CreatedAt    string  `json:"created_at"`
	UpdatedAt    string  `json:"updated_at"`
}

// SignedTransactionIntent is the answer to a transaction sign intent: the
// recorded transaction with its signed bytes (always present here), the
// signing hash and, for a 65-byte signature, the signature.
type SignedTransactionIntent struct {
	Transaction
	SignedTx   string `json:"signed_tx"`
	IntentType string `json:"intent_type"`
	Hash       string `json:"hash"`
	Signature  string `json:"signature,omitempty"`
}

// BalanceChange is one address's change of one asset in a simulation.
type BalanceChange struct {
	Address string `json:"address"`
	Asset   string `json:"asset"`
	Delta   string `json:"delta"`
}

// SimulationResult is one simulated call.
type SimulationResult struct {
	Chain          string          `json:"chain"`
	ChainID        int64           `json:"chain_id"`
	Success        bool            `json:"success"`
	GasUsed        uint64          `json:"gas_used"`
	GasEstimate    uint64          `json:"gas_estimate"`
	ReturnData     string          `json:"return_data"`
	BalanceChanges []BalanceChange `json:"balance_changes"`
	Partial        bool            `json:"partial"`
	RevertReason   *string         `json:"revert_reason,omitempty"`
	Error          string          `json:"error,omitempty"`
	Link           string          `json:"link,omitempty"`
}

// SimulationBundleResult is the answer to a simulated bundle, one result
// per transaction in order.
type SimulationBundleResult struct {
	Results []SimulationResult `json:"results"`
}
