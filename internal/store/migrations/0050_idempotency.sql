-- OCV schema: Idempotency-Key records (spec "Limits"). One row per
-- (organization, principal, key); the primary key makes the claim of a key
-- atomic across proxy replicas (INSERT ... ON CONFLICT DO NOTHING). Rows are
-- purged by age (48 hours) by the proxy's background purger; there is no
-- foreign key to orgs, so a deleted organization's rows age out the same way.
CREATE TABLE idempotency_keys (
    org_id       text NOT NULL CHECK (length(org_id) <= 64),
    principal_id text NOT NULL CHECK (length(principal_id) BETWEEN 1 AND 64),
    key          text COLLATE "C" NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
    request_hash bytea NOT NULL CHECK (length(request_hash) = 32),
    state        text NOT NULL CHECK (state IN ('in_flight', 'done')),
    claim_id     uuid NOT NULL,
    status       integer NOT NULL DEFAULT 0,
    headers      jsonb NOT NULL DEFAULT '{}',
    body         bytea NOT NULL DEFAULT ''::bytea,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    PRIMARY KEY (org_id, principal_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
