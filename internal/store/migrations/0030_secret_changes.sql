-- OCV schema v30: a log of every change to what a secret read returns
-- (issue 14), which each proxy replica polls to drop changed keys from its
-- cache of sealed secrets. Triggers catch every writer: secret writes and
-- deletions, vault and organization deletions (cascades), and rewrites of
-- versions. A row names one secret (path set) or a whole vault (path NULL:
-- deletions of more than 64 secrets at once).
-- It is inserted by the writing transaction itself, so it exists exactly
-- when the write committed; readers find the rows committed since their
-- last poll by transaction visibility (xid against the previous snapshot),
-- never by order of insertion. NOTIFY is not used: PostgreSQL serializes
-- the commits of notifying transactions, which would cost writes their
-- group commit. Rows are deleted after a few minutes by the replicas.
CREATE TABLE secret_changes (
    xid      xid8 NOT NULL DEFAULT pg_current_xact_id(),
    org_id   uuid NOT NULL,
    vault_id uuid NOT NULL,
    path     text COLLATE "C"
);
CREATE INDEX secret_changes_xid ON secret_changes (xid);

CREATE FUNCTION ocv_secret_change_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND (OLD.org_id, OLD.vault_id, OLD.path) IS DISTINCT FROM (NEW.org_id, NEW.vault_id, NEW.path) THEN
        INSERT INTO secret_changes (org_id, vault_id, path) VALUES (OLD.org_id, OLD.vault_id, OLD.path);
    END IF;
    INSERT INTO secret_changes (org_id, vault_id, path) VALUES (NEW.org_id, NEW.vault_id, NEW.path);
    RETURN NULL;
END
$$;

CREATE TRIGGER secrets_log_write AFTER INSERT OR UPDATE ON secrets
    FOR EACH ROW EXECUTE FUNCTION ocv_secret_change_row();

CREATE FUNCTION ocv_secrets_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (SELECT count(*) FROM (SELECT 1 FROM gone LIMIT 65) g) > 64 THEN
        INSERT INTO secret_changes (org_id, vault_id, path) SELECT DISTINCT org_id, vault_id, NULL::text FROM gone;
    ELSE
        INSERT INTO secret_changes (org_id, vault_id, path) SELECT org_id, vault_id, path FROM gone;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER secrets_log_delete AFTER DELETE ON secrets
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION ocv_secrets_deleted();

-- A version's sealed parts rewritten in place (a rewrap) change what a read
-- of the current version returns.
CREATE FUNCTION ocv_secret_versions_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (SELECT count(*) FROM (SELECT 1 FROM changed LIMIT 65) g) > 64 THEN
        INSERT INTO secret_changes (org_id, vault_id, path)
            SELECT DISTINCT s.org_id, s.vault_id, NULL::text
            FROM changed c JOIN secrets s ON s.org_id = c.org_id AND s.id = c.secret_id;
    ELSE
        INSERT INTO secret_changes (org_id, vault_id, path)
            SELECT s.org_id, s.vault_id, s.path
            FROM changed c JOIN secrets s ON s.org_id = c.org_id AND s.id = c.secret_id;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER secret_versions_log_update AFTER UPDATE ON secret_versions
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION ocv_secret_versions_updated();
