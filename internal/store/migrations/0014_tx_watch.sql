-- OCV schema v14: broadcast transactions are watched until the chain has a
-- receipt for them. next_check_at is when a worker (any replica, FOR UPDATE
-- SKIP LOCKED) looks next; NULL means not watched (sign-only transactions,
-- finished ones, or past watch_until).
ALTER TABLE agent_transactions
    ADD COLUMN next_check_at timestamptz,
    ADD COLUMN watch_until   timestamptz;
CREATE INDEX agent_transactions_watch ON agent_transactions (next_check_at) WHERE next_check_at IS NOT NULL;
