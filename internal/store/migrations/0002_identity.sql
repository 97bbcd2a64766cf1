-- OCV schema v2: identity. Platform roles and sign-in failures on users,
-- refresh tokens, personal API keys, per-user settings and organization
-- invitations. Tokens and keys are stored only as SHA-256 hashes: they are
-- 32 random bytes, so a fast hash is enough and lookups are by hash.
--
-- Tenant tables keep org_id first in their primary key (DESIGN.md section 4).
-- Lookups by hash (refresh, API key, invite acceptance) come without an
-- organization, so their indexes are not unique and, on a distributed
-- engine, such a lookup asks every shard; uniqueness is not needed for
-- correctness because 256-bit random values do not collide.

ALTER TABLE users
    ADD COLUMN platform_role text NOT NULL DEFAULT ''
        CHECK (platform_role IN ('', 'admin', 'super_admin')),
    ADD COLUMN failed_logins integer NOT NULL DEFAULT 0,
    ADD COLUMN locked_until  timestamptz;

-- One row per issued refresh token. A family is the chain of rotations that
-- starts at one sign-in; a spent token presented again revokes its family.
-- Spent rows are kept until they expire, so that reuse stays detectable.
CREATE TABLE refresh_tokens (
    org_id     uuid NOT NULL,
    id         uuid NOT NULL,
    family_id  uuid NOT NULL,
    user_id    uuid NOT NULL,
    token_hash bytea NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz,
    revoked_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, id),
    FOREIGN KEY (org_id, user_id) REFERENCES org_members (org_id, user_id) ON DELETE CASCADE
);
CREATE INDEX refresh_tokens_hash ON refresh_tokens (token_hash);
CREATE INDEX refresh_tokens_family ON refresh_tokens (org_id, family_id);
CREATE INDEX refresh_tokens_user ON refresh_tokens (org_id, user_id);
CREATE INDEX refresh_tokens_expiry ON refresh_tokens (expires_at);

-- Personal API keys (prefix ocvk_). A key belongs to a membership: removing
-- the member removes the keys.
CREATE TABLE api_keys (
    org_id     uuid NOT NULL,
    id         uuid NOT NULL,
    user_id    uuid NOT NULL,
    name       text NOT NULL,
    key_hash   bytea NOT NULL,
    last_four  text NOT NULL,
    expires_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, id),
    FOREIGN KEY (org_id, user_id) REFERENCES org_members (org_id, user_id) ON DELETE CASCADE
);
CREATE INDEX api_keys_hash ON api_keys (key_hash);
CREATE INDEX api_keys_user ON api_keys (org_id, user_id, id);

-- Per-user security settings (users are a global table, so is this one).
CREATE TABLE user_settings (
    user_id                    uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    require_passkey_for_vaults boolean NOT NULL DEFAULT false,
    updated_at                 timestamptz NOT NULL DEFAULT now()
);

-- Pending invitations to an organization; at most one pending per address.
CREATE TABLE org_invites (
    org_id      uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    id          uuid NOT NULL,
    email       text NOT NULL,
    email_key   text NOT NULL,
    role        text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    token_hash  bytea NOT NULL,
    invited_by  uuid NOT NULL,
    expires_at  timestamptz NOT NULL,
    accepted_at timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, id)
);
CREATE UNIQUE INDEX org_invites_pending ON org_invites (org_id, email_key) WHERE accepted_at IS NULL;
CREATE INDEX org_invites_hash ON org_invites (token_hash);
CREATE INDEX org_invites_expiry ON org_invites (expires_at) WHERE accepted_at IS NULL;
