-- OCV schema v22: share links (issue 12).
--
-- A share serves the secret version it was created from. Shares made before
-- this version are pinned to the secret's version at upgrade time.
ALTER TABLE shares ADD COLUMN secret_version integer;
UPDATE shares sh SET secret_version = s.version FROM secrets s WHERE s.org_id = sh.org_id AND s.id = sh.secret_id;
UPDATE shares SET secret_version = 1 WHERE secret_version IS NULL;
ALTER TABLE shares ALTER COLUMN secret_version SET NOT NULL;
ALTER TABLE shares ADD CONSTRAINT shares_secret_version CHECK (secret_version >= 1);

-- Link shares made before this version have UUIDv7 ids (62 random bits)
-- that can be guessed; they are revoked. New shares have UUIDv4 ids.
-- Addressed shares (creator, user, agent) open only with the addressed
-- principal's token and stay usable.
UPDATE shares SET status = 'revoked', updated_at = now()
 WHERE recipient_type IN ('anyone_with_link', 'external_email') AND status IN ('pending', 'accepted')
   AND substr(id::text, 15, 1) <> '4';

-- Failed attempts at opening shares, per share ('share:<id>') and per client
-- address ('addr:<address or IPv6 /64>'), in fixed windows. Kept in
-- PostgreSQL so that every proxy replica counts the same attempts.
CREATE TABLE share_attempts (
    key          text COLLATE "C" PRIMARY KEY CHECK (length(key) <= 128),
    window_start timestamptz NOT NULL,
    failures     integer NOT NULL CHECK (failures >= 0)
);
CREATE INDEX share_attempts_window ON share_attempts (window_start);
