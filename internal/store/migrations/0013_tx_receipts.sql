-- OCV schema v13: what the chain says of a broadcast transaction. A read of
-- the transaction asks the node for its receipt while it is "broadcast"
-- and records the outcome: "confirmed" (status 1) or "reverted" (status 0)
-- with the block and the gas used.
ALTER TABLE agent_transactions DROP CONSTRAINT agent_transactions_status_check;
ALTER TABLE agent_transactions ADD CONSTRAINT agent_transactions_status_check
    CHECK (status IN ('signed', 'broadcast', 'failed', 'confirmed', 'reverted'));
ALTER TABLE agent_transactions
    ADD COLUMN block_number bigint,
    ADD COLUMN gas_used     bigint;
