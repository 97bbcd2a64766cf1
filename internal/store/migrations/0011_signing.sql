-- OCV schema v11: agent signing keys, transactions, daily counters and
-- server-side nonces (Intents API).
--
-- A signing key's private half lives only in the HSM under the ref
-- "sk/<agent_id>/<chain>" v<version>; this table keeps its public half.
-- At most one version per agent and chain is active.
CREATE TABLE signing_keys (
    org_id         uuid NOT NULL,
    agent_id       uuid NOT NULL,
    chain          text NOT NULL CHECK (chain IN ('ethereum', 'bitcoin', 'solana', 'xrp', 'cardano', 'tron')),
    version        integer NOT NULL CHECK (version > 0),
    curve          text NOT NULL CHECK (curve IN ('secp256k1', 'ed25519')),
    public_key     bytea NOT NULL,
    address        text NOT NULL,
    imported       boolean NOT NULL DEFAULT false,
    status         text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'rotated', 'deleted')),
    created_at     timestamptz NOT NULL DEFAULT now(),
    deactivated_at timestamptz,
    PRIMARY KEY (org_id, agent_id, chain, version),
    FOREIGN KEY (org_id, agent_id) REFERENCES agents (org_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX signing_keys_active ON signing_keys (org_id, agent_id, chain) WHERE status = 'active';

-- One row per signed transaction. signed_tx is the raw signed transaction
-- (public once broadcast; returned only on request).
CREATE TABLE agent_transactions (
    org_id          uuid NOT NULL,
    id              uuid NOT NULL,
    agent_id        uuid NOT NULL,
    chain           text NOT NULL,
    chain_id        bigint NOT NULL,
    key_version     integer NOT NULL,
    tx_type         smallint NOT NULL,
    from_address    text NOT NULL,
    to_address      text NOT NULL DEFAULT '',
    value_wei       numeric(78, 0) NOT NULL DEFAULT 0,
    nonce           bigint NOT NULL,
    token_address   text NOT NULL DEFAULT '',
    token_amount    numeric(78, 0),
    tx_hash         text NOT NULL,
    signed_tx       bytea NOT NULL,
    status          text NOT NULL CHECK (status IN ('signed', 'broadcast', 'failed')),
    error           text NOT NULL DEFAULT '',
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, id),
    FOREIGN KEY (org_id, agent_id) REFERENCES agents (org_id, id) ON DELETE CASCADE
);
CREATE INDEX agent_transactions_by_agent ON agent_transactions (org_id, agent_id, id DESC);

-- Per agent and UTC day: signatures counted in all and per chain, and
-- native value spent per chain (base units, decimal text in jsonb). One
-- row per day, so a reservation is a single conditional upsert: its row
-- lock lasts one statement and concurrent requests never overshoot a limit.
CREATE TABLE agent_tx_daily (
    org_id       uuid NOT NULL,
    agent_id     uuid NOT NULL,
    day          date NOT NULL,
    tx_count     bigint NOT NULL DEFAULT 0 CHECK (tx_count >= 0),
    chain_counts jsonb NOT NULL DEFAULT '{}',
    chain_spent  jsonb NOT NULL DEFAULT '{}',
    PRIMARY KEY (org_id, agent_id, day),
    FOREIGN KEY (org_id, agent_id) REFERENCES agents (org_id, id) ON DELETE CASCADE
);

-- Server-side nonces per sending address and EVM chain: next is the lowest
-- nonce never handed out; released holds nonces handed out whose
-- transaction was never broadcast, handed out again first.
CREATE TABLE evm_nonces (
    org_id   uuid NOT NULL,
    chain_id bigint NOT NULL,
    address  text NOT NULL,
    next     bigint NOT NULL CHECK (next >= 0),
    released bigint[] NOT NULL DEFAULT '{}',
    PRIMARY KEY (org_id, chain_id, address)
);
