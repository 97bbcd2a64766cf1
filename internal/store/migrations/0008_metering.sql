-- Metering: monthly API-call counters, prepaid credits and spent x402
-- payment nonces (proxy/metering).

-- One row per organization and calendar month (UTC, 'YYYY-MM'). Proxy
-- replicas lease blocks of calls from it, so `used` counts calls leased,
-- which is never less than calls served (see proxy/metering.Counter).
CREATE TABLE usage_counters (
    org_id     uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    period     text NOT NULL CHECK (period ~ '^[0-9]{4}-[0-9]{2}$'),
    used       bigint NOT NULL DEFAULT 0 CHECK (used >= 0),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, period)
);

-- Prepaid credits, spent per request once the monthly quota is used up.
CREATE TABLE org_credits (
    org_id        uuid PRIMARY KEY REFERENCES orgs (id) ON DELETE CASCADE,
    balance_cents bigint NOT NULL DEFAULT 0 CHECK (balance_cents >= 0),
    updated_at    timestamptz NOT NULL DEFAULT now()
);

-- EIP-3009 authorization nonces already accepted, so that a payment is
-- never accepted twice. org_id is NULL for payments on routes served without
-- a token. No foreign key: deleting an organization must not free its nonces.
-- Rows older than the longest accepted authorization window may be purged.
CREATE TABLE payment_nonces (
    nonce      text PRIMARY KEY,
    org_id     uuid,
    payer      text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX payment_nonces_created ON payment_nonces (created_at);
