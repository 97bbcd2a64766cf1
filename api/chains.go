package api

// Chain is one chain of the registry.
type Chain struct {
	ID          string   `json:"id"`
	ChainID     *int64   `json:"chain_id"`
	Family      string   `json:"family"`
	Name        string   `json:"name"`
	Aliases     []string `json:"aliases"`
	RPCURL      *string  `json:"rpc_url,omitempty"` // platform administrators only
	ExplorerURL string   `json:"explorer_url"`
	IsTestnet   bool     `json:"is_testnet"`
	IsEnabled   bool     `json:"is_enabled"`
}

// ChainWrite is the body of POST /v1/admin/chains.
type ChainWrite struct {
	ID          string   `json:"id"`
	ChainID     *int64   `json:"chain_id"`
	Family      string   `json:"family"`
	Name        string   `json:"name"`
	Aliases     []string `json:"aliases"`
	RPCURL      string   `json:"rpc_url"`
	ExplorerURL string   `json:"explorer_url"`
	IsTestnet   bool     `json:"is_testnet"`
	IsEnabled   *bool    `json:"is_enabled"`
}

// KnownToken is one token of the known-token registry.
type KnownToken struct {
	Chain           string `json:"chain"`
	ContractAddress string `json:"contract_address"`
	Symbol          string `json:"symbol"`
	Decimals        int    `json:"decimals"`
	Name            string `json:"name"`
}

// KnownTokenWrite is the body of POST /v1/admin/tokens.
type KnownTokenWrite struct {
	Chain           string `json:"chain"`
	ContractAddress string `json:"contract_address"`
	Symbol          string `json:"symbol"`
	Decimals        *int   `json:"decimals"`
	Name            string `json:"name"`
}
