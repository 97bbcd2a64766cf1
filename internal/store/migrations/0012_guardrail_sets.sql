-- OCV schema v12: each agent's guardrail set as the enclave sealed it.
--
-- guardrail_set is the wire.GuardrailSet JSON (the agent's guardrail
-- fields and the tx_conditions of the policies that target it) at
-- guardrail_version, and guardrail_mac the enclave's HMAC of it. Any change
-- that can alter them clears the MAC in its own transaction; until a human
-- has the enclave seal the next version, the agent cannot sign (fail
-- closed).
ALTER TABLE agents
    ADD COLUMN guardrail_set     bytea,
    ADD COLUMN guardrail_mac     bytea,
    ADD COLUMN guardrail_version bigint NOT NULL DEFAULT 0;
