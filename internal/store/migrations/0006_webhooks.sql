-- OCV schema v6: webhooks, the events they subscribe to and the delivery
-- outbox. An event row and its delivery rows are written in the transaction
-- of the change they report (store.EmitEvent).

-- secret is the per-webhook HMAC key, stored in clear: the proxy needs it to
-- sign every delivery (docs/threat-model.md, "Webhook secrets").
CREATE TABLE webhooks (
    org_id      uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    id          uuid NOT NULL,
    url         text NOT NULL,
    events      text[] NOT NULL,
    description text NOT NULL DEFAULT '',
    is_active   boolean NOT NULL DEFAULT true,
    secret      bytea NOT NULL,
    created_by  uuid NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, id),
    UNIQUE (id)
);
CREATE INDEX webhooks_events ON webhooks USING gin (events) WHERE is_active;

-- events is the organization's event stream: webhooks and, later,
-- event-triggered automations read it.
CREATE TABLE events (
    org_id     uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    id         uuid NOT NULL PRIMARY KEY,
    name       text NOT NULL,
    data       jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_org_created ON events (org_id, created_at);

-- webhook_deliveries is the outbox: one row per (event, webhook).
CREATE TABLE webhook_deliveries (
    id              uuid PRIMARY KEY,
    org_id          uuid NOT NULL,
    webhook_id      uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_id        uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempt         integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    lease_until     timestamptz,
    last_status     integer,
    last_error      text,
    history         jsonb NOT NULL DEFAULT '[]',
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, created_at DESC);
