-- OCV schema v3: agents. An agent is a non-human principal of one
-- organization with its own API key (prefix ocv_, stored only as SHA-256)
-- exchanged for short-lived agent JWTs.
--
-- tokens_valid_after revokes every agent JWT issued before it: policy
-- changes that target the agent, key rotation and deactivation move it
-- forward (see proxy/auth AgentCutoffs).
CREATE TABLE agents (
    org_id              uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    id                  uuid NOT NULL,
    name                text NOT NULL,
    description         text NOT NULL DEFAULT '',
    status              text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive')),
    intents_api_enabled boolean NOT NULL DEFAULT false,
    environment         text,
    scopes              text[],                 -- NULL: derived from the agent's policies
    guardrails          jsonb NOT NULL DEFAULT '{}',
    key_hash            bytea NOT NULL,
    key_last_four       text NOT NULL,
    api_key_expires_at  timestamptz,
    tokens_valid_after  timestamptz,
    created_by          uuid NOT NULL,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, id)
);
-- The key exchange names the agent id and the key, without an organization.
CREATE INDEX agents_key_hash ON agents (key_hash);
CREATE INDEX agents_tokens_valid_after ON agents (tokens_valid_after) WHERE tokens_valid_after IS NOT NULL;
