-- OCV schema v29: audit events are chained as they are inserted (issue 14).
-- The audit log's group committer locks each organization's chain tip
-- (audit_chain_state, SELECT ... FOR UPDATE in org_id order), numbers its
-- batch after the tip, inserts the events with chain_seq, prev_id and hash
-- and moves the tip, all in one transaction. Events a write records in its
-- own transaction are still inserted unsealed and chained by the sealer
-- under the same lock. No column changes: the tip table is the sealer's
-- former position, which already is the last sealed event of every chain;
-- events unsealed at upgrade time are chained by the sealer after the
-- first batches of the new binary (chain order need not be id order).
-- Every organization with events gets its tip now (at the genesis when
-- none of its events is sealed yet), so that the committer need not start
-- chains for existing organizations under load.
INSERT INTO audit_chain_state (org_id, last_seq, last_id, last_hash)
SELECT DISTINCT org_id, 0, 0, decode(repeat('00', 32), 'hex')
FROM audit_events
ON CONFLICT (org_id) DO NOTHING;

COMMENT ON TABLE audit_chain_state IS
    'Chain tip per organization: the last chained event. Locked FOR UPDATE (in org_id order) by every transaction that chains events.';
COMMENT ON COLUMN audit_events.chain_seq IS
    'Position in the organization''s chain: set at insert by the group committer, or by the sealer for events a write inserted unsealed.';
