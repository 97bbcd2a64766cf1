package mcpserver

// Arguments of the Intents API tools. These types only shape the input
// schemas (and the SDK's validation); the handlers forward the client's
// own JSON text (see rawArgs), so that numbers reach the API exactly as the
// model wrote them, never rounded through float64.

type balanceArgs struct {
	Chain  any      `json:"chain" jsonschema:"an EVM chain name or alias (ethereum, base, sepolia, ...) or a decimal chain id (8453)"`
	Tokens []string `json:"tokens,omitempty" jsonschema:"ERC-20 contract addresses whose balances to read as well (at most 20)"`
}

type signMessageArgs struct {
	Message string `json:"message" jsonschema:"the message (EIP-191 personal_sign); 0x followed by an even number of hex digits is signed as those bytes, anything else as its UTF-8 text"`
	Chain   any    `json:"chain,omitempty" jsonschema:"an EVM chain name or alias or a decimal chain id; default ethereum"`
}

type signTypedDataArgs struct {
	TypedData map[string]any `json:"typed_data" jsonschema:"the EIP-712 document: types (with EIP712Domain), primaryType, domain and message; give integers above 2^53 as decimal strings"`
	Chain     any            `json:"chain,omitempty" jsonschema:"an EVM chain name or alias or a decimal chain id; default ethereum"`
}

type accessTuple struct {
	Address     string   `json:"address" jsonschema:"a 20-byte 0x address"`
	StorageKeys []string `json:"storage_keys" jsonschema:"32-byte 0x storage keys"`
}

type authorization struct {
	ChainID uint64 `json:"chain_id" jsonschema:"the chain id the authorization is valid on (0: any chain)"`
	Address string `json:"address" jsonschema:"the contract whose code the account delegates to"`
	Nonce   uint64 `json:"nonce" jsonschema:"the authorizing account's nonce"`
	YParity *int   `json:"y_parity,omitempty" jsonschema:"with r and s: another signer's signature; without all three the agent's key signs it"`
	R       string `json:"r,omitempty" jsonschema:"0x hex"`
	S       string `json:"s,omitempty" jsonschema:"0x hex"`
}

// txArgs is the API's TransactionRequest as the tools offer it.
type txArgs struct {
	ChainID              any             `json:"chain_id" jsonschema:"the EVM chain: a decimal chain id (8453) or a chain name or alias (base)"`
	To                   string          `json:"to,omitempty" jsonschema:"the 0x recipient address (the token recipient with token_mint); absent for a contract creation"`
	Value                string          `json:"value" jsonschema:"native value in wei as 0x hex (\"0x0\" for none); with token_mint the token amount: 0x hex base units or a decimal amount of whole tokens such as \"1.5\""`
	Data                 string          `json:"data,omitempty" jsonschema:"0x hex calldata (not with token_mint)"`
	Gas                  *uint64         `json:"gas,omitempty" jsonschema:"gas limit; absent: the node's estimate plus 20%"`
	GasPrice             string          `json:"gas_price,omitempty" jsonschema:"legacy gas price in wei, 0x hex"`
	MaxFeePerGas         string          `json:"max_fee_per_gas,omitempty" jsonschema:"EIP-1559 fee cap in wei, 0x hex; absent: filled in by the server"`
	MaxPriorityFeePerGas string          `json:"max_priority_fee_per_gas,omitempty" jsonschema:"EIP-1559 tip in wei, 0x hex"`
	Nonce                *uint64         `json:"nonce,omitempty" jsonschema:"absent: the node's pending nonce, reserved by the server"`
	SimulateFirst        bool            `json:"simulate_first,omitempty" jsonschema:"run the call first; a revert is refused (simulation_reverted) before anything is signed"`
	TokenMint            string          `json:"token_mint,omitempty" jsonschema:"an ERC-20 contract: the server builds transfer(to, value)"`
	TokenDecimals        *int            `json:"token_decimals,omitempty" jsonschema:"decimals of a decimal token value; default: the token registry's"`
	Type                 *int            `json:"type,omitempty" jsonschema:"EIP-2718 type 0 to 4; absent: 2, or 0 when gas_price is given"`
	AccessList           []accessTuple   `json:"access_list,omitempty" jsonschema:"EIP-2930 access list"`
	AuthorizationList    []authorization `json:"authorization_list,omitempty" jsonschema:"EIP-7702 authorizations (type 4)"`
}

// txFields are the TransactionRequest fields the tools pass to the API.
var txFields = []string{"chain_id", "to", "value", "data", "gas", "gas_price", "max_fee_per_gas",
	"max_priority_fee_per_gas", "nonce", "simulate_first", "token_mint", "token_decimals", "type",
	"access_list", "authorization_list"}

// sendTxArgs is txArgs with the idempotency key of send_transaction.
type sendTxArgs struct {
	txArgs
	IdempotencyKey string `json:"idempotency_key,omitempty" jsonschema:"makes a retry safe: a second call with the same key and request answers the first result instead of sending again (1 to 255 printable ASCII characters)"`
}

type listTxArgs struct {
	Limit  int    `json:"limit,omitempty" jsonschema:"page size, 1 to 500 (default 50)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
}
