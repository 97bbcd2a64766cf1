-- OCV schema v30: every change to what a secret read returns is announced
-- at commit on channel ocv_secret_changed (issue 14), so that each proxy
-- replica drops the key from its cache of sealed secrets. Triggers catch
-- every writer: secret writes and deletions, vault and organization
-- deletions (cascades), and rewrites of versions. The payload is
-- "<org_id> <vault_id> <path>", or "<org_id> <vault_id>" for a whole vault
-- (deletions of more than 64 secrets at once, paths too long for a
-- notification). NOTIFY is transactional: a rolled-back write announces
-- nothing, and identical payloads of one transaction are sent once.
CREATE FUNCTION ocv_secret_key(org uuid, vault uuid, p text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN octet_length(p) > 4000 THEN org::text || ' ' || vault::text
        ELSE org::text || ' ' || vault::text || ' ' || p END
$$;

CREATE FUNCTION ocv_notify_secret_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        PERFORM pg_notify('ocv_secret_changed', ocv_secret_key(OLD.org_id, OLD.vault_id, OLD.path));
    END IF;
    PERFORM pg_notify('ocv_secret_changed', ocv_secret_key(NEW.org_id, NEW.vault_id, NEW.path));
    RETURN NULL;
END
$$;

CREATE TRIGGER secrets_notify_write AFTER INSERT OR UPDATE ON secrets
    FOR EACH ROW EXECUTE FUNCTION ocv_notify_secret_row();

CREATE FUNCTION ocv_notify_secrets_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (SELECT count(*) FROM (SELECT 1 FROM gone LIMIT 65) g) > 64 THEN
        PERFORM pg_notify('ocv_secret_changed', k)
            FROM (SELECT DISTINCT org_id::text || ' ' || vault_id::text AS k FROM gone) v;
    ELSE
        PERFORM pg_notify('ocv_secret_changed', ocv_secret_key(org_id, vault_id, path)) FROM gone;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER secrets_notify_delete AFTER DELETE ON secrets
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION ocv_notify_secrets_deleted();

-- A version's sealed parts rewritten in place (a rewrap) change what a read
-- of the current version returns.
CREATE FUNCTION ocv_notify_versions_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (SELECT count(*) FROM (SELECT 1 FROM changed LIMIT 65) g) > 64 THEN
        PERFORM pg_notify('ocv_secret_changed', k)
            FROM (SELECT DISTINCT s.org_id::text || ' ' || s.vault_id::text AS k
                FROM changed c JOIN secrets s ON s.org_id = c.org_id AND s.id = c.secret_id) v;
    ELSE
        PERFORM pg_notify('ocv_secret_changed', ocv_secret_key(s.org_id, s.vault_id, s.path))
            FROM changed c JOIN secrets s ON s.org_id = c.org_id AND s.id = c.secret_id;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER secret_versions_notify_update AFTER UPDATE ON secret_versions
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION ocv_notify_versions_updated();
