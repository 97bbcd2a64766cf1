-- OCV schema v27: replaying webhook deliveries (issue 13, item 3). A
-- delivery that reached the dead-letter state ('failed': every retry of the
-- retry window spent, or a destination that can never succeed) can be
-- replayed by an owner or admin: it is queued again with a fresh attempt
-- series and the same event (same payload, same event id). replays counts
-- how often that happened and replayed_at says when it last did; the
-- history keeps the attempts of every series.
ALTER TABLE webhook_deliveries ADD COLUMN replays integer NOT NULL DEFAULT 0;
ALTER TABLE webhook_deliveries ADD COLUMN replayed_at timestamptz;
-- Bulk replay walks one webhook's failed deliveries by creation time.
CREATE INDEX webhook_deliveries_failed ON webhook_deliveries (webhook_id, created_at) WHERE status = 'failed';
