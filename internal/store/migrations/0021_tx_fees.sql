-- OCV schema v21: the maximum fees (gas limit × max fee per gas, plus blob
-- gas × blob fee cap) reserved per agent, UTC day and chain, base units as
-- decimal text, counted in the same upsert as the transaction and its value
-- so a budget of fees (tx_overhead_budget) is judged on every fee reserved
-- before the request.
ALTER TABLE agent_tx_daily ADD COLUMN chain_fees jsonb NOT NULL DEFAULT '{}';
