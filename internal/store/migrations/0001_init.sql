-- OCV schema v1. Every tenant table has org_id as the first column of its
-- primary key, and every foreign key and unique constraint includes org_id
-- (DESIGN.md section 4), so the schema can be distributed by tenant.

CREATE TABLE users (
    id            uuid PRIMARY KEY,
    email         text NOT NULL,
    email_key     text NOT NULL UNIQUE,          -- lower(trim(email))
    password_hash text,                          -- argon2id PHC string
    created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE orgs (
    id         uuid PRIMARY KEY,
    name       text NOT NULL,
    tier       text NOT NULL DEFAULT 'free',
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE org_members (
    org_id     uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role       text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, user_id)
);
CREATE INDEX org_members_user ON org_members (user_id);

-- Revoked access tokens, kept until they would have expired anyway.
CREATE TABLE revoked_tokens (
    jti        text PRIMARY KEY,
    org_id     uuid NOT NULL,
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX revoked_tokens_expiry ON revoked_tokens (expires_at);

CREATE TABLE vaults (
    org_id      uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    id          uuid NOT NULL,
    name        text NOT NULL,
    description text NOT NULL DEFAULT '',
    kek_version integer NOT NULL,
    created_by  uuid,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, id),
    UNIQUE (org_id, name)
);

CREATE TABLE secrets (
    org_id     uuid NOT NULL,
    id         uuid NOT NULL,
    vault_id   uuid NOT NULL,
    path       text COLLATE "C" NOT NULL,
    type       text NOT NULL,
    metadata   jsonb NOT NULL DEFAULT '{}',
    version    integer NOT NULL,
    expires_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, id),
    UNIQUE (org_id, vault_id, path),
    FOREIGN KEY (org_id, vault_id) REFERENCES vaults (org_id, id) ON DELETE CASCADE
);

-- One row per written version: only ciphertext and the wrapped data key.
CREATE TABLE secret_versions (
    org_id      uuid NOT NULL,
    secret_id   uuid NOT NULL,
    version     integer NOT NULL,
    kek_version integer NOT NULL,
    wrapped_dek bytea NOT NULL,
    ciphertext  bytea NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, secret_id, version),
    FOREIGN KEY (org_id, secret_id) REFERENCES secrets (org_id, id) ON DELETE CASCADE
);

-- Audit events. Requests that belong to no organization (public routes,
-- failed sign-ins) use the nil UUID as org_id and form their own chain.
-- chain_seq, prev_id and hash are set by the sealer, in batches.
CREATE TABLE audit_events (
    org_id      uuid NOT NULL,
    id          bigint GENERATED ALWAYS AS IDENTITY,
    occurred_at timestamptz NOT NULL,
    request_id  text NOT NULL,
    actor_type  text NOT NULL,
    actor_id    text NOT NULL,
    action      text NOT NULL,
    resource    text NOT NULL,
    outcome     text NOT NULL,
    status      integer NOT NULL,
    client_ip   text NOT NULL,
    chain_seq   bigint,
    prev_id     bigint,
    hash        bytea,
    PRIMARY KEY (org_id, id)
);
CREATE INDEX audit_events_unsealed ON audit_events (org_id, id) WHERE chain_seq IS NULL;
CREATE UNIQUE INDEX audit_events_chain ON audit_events (org_id, chain_seq) WHERE chain_seq IS NOT NULL;
CREATE INDEX audit_events_action ON audit_events (org_id, action, id);

-- The sealer's position per organization's chain.
CREATE TABLE audit_chain_state (
    org_id    uuid PRIMARY KEY,
    last_seq  bigint NOT NULL,
    last_id   bigint NOT NULL,
    last_hash bytea NOT NULL
);

-- Chain heads signed by the enclave: deleting the newest events is
-- detectable against any earlier signed head.
CREATE TABLE audit_heads (
    org_id    uuid NOT NULL,
    chain_seq bigint NOT NULL,
    event_id  bigint NOT NULL,
    hash      bytea NOT NULL,
    signature bytea NOT NULL,
    kid       text NOT NULL,
    signed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, chain_seq)
);
