-- OCV schema v7: secret shares. A share is opened with its creator's
-- authority (docs/threat-model.md, "Shares"); remaining is decremented
-- atomically by every successful open.
CREATE TABLE shares (
    org_id              uuid NOT NULL,
    id                  uuid NOT NULL PRIMARY KEY,
    secret_id           uuid NOT NULL,
    vault_id            uuid NOT NULL,
    path                text COLLATE "C" NOT NULL,
    creator_type        text NOT NULL CHECK (creator_type IN ('user', 'agent')),
    creator_id          uuid NOT NULL,
    recipient_type      text NOT NULL CHECK (recipient_type IN ('creator', 'external_email', 'user', 'agent', 'anyone_with_link')),
    recipient_id        uuid,
    recipient_email     text,
    recipient_email_key text,
    expires_at          timestamptz NOT NULL,
    max_access_count    integer NOT NULL CHECK (max_access_count BETWEEN 1 AND 1000),
    remaining           integer NOT NULL CHECK (remaining >= 0),
    passphrase_hash     text,
    ip_allowlist        text[] NOT NULL DEFAULT '{}',
    status              text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'declined', 'revoked')),
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (org_id, secret_id) REFERENCES secrets (org_id, id) ON DELETE CASCADE
);
CREATE INDEX shares_creator ON shares (org_id, creator_type, creator_id, created_at DESC);
CREATE INDEX shares_recipient ON shares (recipient_id) WHERE recipient_id IS NOT NULL;
CREATE INDEX shares_recipient_email ON shares (recipient_email_key) WHERE recipient_email_key IS NOT NULL;
