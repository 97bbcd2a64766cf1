-- Platform-wide registries (global reference tables, no org_id): chains,
-- the known-token registry and the platform settings of the admin API.

CREATE TABLE chains (
    id           text PRIMARY KEY CHECK (id ~ '^[a-z][a-z0-9-]{0,31}$'),
    chain_id     bigint UNIQUE CHECK (chain_id > 0),          -- EVM chain id; NULL for non-EVM chains
    family       text NOT NULL CHECK (family IN ('evm', 'bitcoin', 'solana', 'xrp', 'cardano', 'tron')),
    name         text NOT NULL,
    aliases      text[] NOT NULL DEFAULT '{}',
    rpc_url      text NOT NULL DEFAULT '',
    explorer_url text NOT NULL DEFAULT '',
    is_testnet   boolean NOT NULL DEFAULT false,
    is_enabled   boolean NOT NULL DEFAULT true,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    CHECK ((family = 'evm') = (chain_id IS NOT NULL))
);
CREATE INDEX chains_aliases ON chains USING gin (aliases);

-- The RPC URLs seeded here are public placeholders for development only:
-- operators set their own with POST /v1/admin/chains.
INSERT INTO chains (id, chain_id, family, name, aliases, rpc_url, explorer_url, is_testnet) VALUES
    ('ethereum',     1,        'evm',     'Ethereum',     '{mainnet,eth,ethereum-mainnet}', 'https://rpc.example.invalid/ethereum',     'https://etherscan.io',             false),
    ('base',         8453,     'evm',     'Base',         '{base-mainnet}',                 'https://rpc.example.invalid/base',         'https://basescan.org',             false),
    ('sepolia',      11155111, 'evm',     'Sepolia',      '{eth-sepolia,ethereum-sepolia}', 'https://rpc.example.invalid/sepolia',      'https://sepolia.etherscan.io',     true),
    ('base-sepolia', 84532,    'evm',     'Base Sepolia', '{base-testnet}',                 'https://rpc.example.invalid/base-sepolia', 'https://sepolia.basescan.org',     true),
    ('bitcoin',      NULL,     'bitcoin', 'Bitcoin',      '{btc}',                          'https://rpc.example.invalid/bitcoin',      'https://mempool.space',            false),
    ('solana',       NULL,     'solana',  'Solana',       '{sol}',                          'https://rpc.example.invalid/solana',       'https://explorer.solana.com',      false),
    ('xrp',          NULL,     'xrp',     'XRP Ledger',   '{xrpl,ripple}',                  'https://rpc.example.invalid/xrp',          'https://livenet.xrpl.org',         false),
    ('cardano',      NULL,     'cardano', 'Cardano',      '{ada}',                          'https://rpc.example.invalid/cardano',      'https://cardanoscan.io',           false),
    ('tron',         NULL,     'tron',    'TRON',         '{trx}',                          'https://rpc.example.invalid/tron',         'https://tronscan.org',             false);

CREATE TABLE known_tokens (
    chain            text NOT NULL REFERENCES chains (id) ON DELETE CASCADE,
    contract_address text COLLATE "C" NOT NULL,   -- lowercase for EVM chains
    symbol           text NOT NULL,
    decimals         integer NOT NULL CHECK (decimals BETWEEN 0 AND 36),
    name             text NOT NULL DEFAULT '',
    created_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (chain, contract_address)
);

INSERT INTO known_tokens (chain, contract_address, symbol, decimals, name) VALUES
    ('ethereum',     '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', 'USDC', 6, 'USD Coin'),
    ('base',         '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', 'USDC', 6, 'USD Coin'),
    ('base-sepolia', '0x036cbd53842c5426634e7929541ec2318f3dcf7e', 'USDC', 6, 'USDC');

CREATE TABLE platform_settings (
    key        text PRIMARY KEY CHECK (key ~ '^[a-z0-9_.]{1,64}$'),
    value      jsonb NOT NULL,
    updated_by text NOT NULL DEFAULT '',
    updated_at timestamptz NOT NULL DEFAULT now()
);
