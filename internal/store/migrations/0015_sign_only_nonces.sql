-- OCV schema v15: sign-only transactions whose nonce the server reserved
-- are watched too. One the caller never broadcasts would leave a gap that
-- every later broadcast from the address waits behind; after a grace
-- period the watcher gives its nonce back and marks it "abandoned" (a late
-- broadcast of it then fails harmlessly once the nonce is reused).
ALTER TABLE agent_transactions DROP CONSTRAINT agent_transactions_status_check;
ALTER TABLE agent_transactions ADD CONSTRAINT agent_transactions_status_check
    CHECK (status IN ('signed', 'broadcast', 'failed', 'confirmed', 'reverted', 'abandoned'));
ALTER TABLE agent_transactions
    ADD COLUMN sign_only      boolean NOT NULL DEFAULT false,
    ADD COLUMN nonce_reserved boolean NOT NULL DEFAULT false;
