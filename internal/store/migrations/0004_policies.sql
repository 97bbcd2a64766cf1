-- OCV schema v4: policies (grants) per vault, and the canonical encoding of
-- each vault's policy set with its version counter, for the enclave to MAC.
ALTER TABLE vaults ADD COLUMN policy_version bigint NOT NULL DEFAULT 0;

-- principal_id names a user member or an agent of the organization; it has
-- no foreign key (two possible tables), the store checks it on write.
CREATE TABLE policies (
    org_id               uuid NOT NULL,
    id                   uuid NOT NULL,
    vault_id             uuid NOT NULL,
    secret_path_pattern  text COLLATE "C" NOT NULL,
    principal_type       text NOT NULL CHECK (principal_type IN ('user', 'agent')),
    principal_id         uuid NOT NULL,
    permissions          text[] NOT NULL,
    conditions           jsonb NOT NULL DEFAULT '{}',
    effect               text NOT NULL CHECK (effect IN ('allow', 'deny')),
    priority             integer NOT NULL DEFAULT 0,
    attribute_conditions jsonb,
    tx_conditions        jsonb,
    consensus_trigger    jsonb,
    expires_at           timestamptz,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, id),
    FOREIGN KEY (org_id, vault_id) REFERENCES vaults (org_id, id) ON DELETE CASCADE
);
-- Enforcement loads the caller's policies of one vault per request.
CREATE INDEX policies_vault_principal ON policies (org_id, vault_id, principal_type, principal_id);
CREATE INDEX policies_principal ON policies (org_id, principal_type, principal_id);

-- The encoded policy set of each vault (policy.EncodeSet) at its version;
-- mac is filled by the enclave (SealPolicySet) and NULL until then.
CREATE TABLE vault_policy_sets (
    org_id   uuid NOT NULL,
    vault_id uuid NOT NULL,
    version  bigint NOT NULL,
    set      bytea NOT NULL,
    mac      bytea,
    PRIMARY KEY (org_id, vault_id),
    FOREIGN KEY (org_id, vault_id) REFERENCES vaults (org_id, id) ON DELETE CASCADE
);
