-- OCV schema v25: vault names compare after normalisation (issue 13,
-- item 7). name_key is the name's look-alike key (NFKC, case folded,
-- white space collapsed) that the proxy computes; no two vaults of an
-- organization share one. Rows from before get an approximation in SQL,
-- except look-alikes that already exist side by side, which keep a NULL
-- key (they stay readable; renaming is not offered).
ALTER TABLE vaults ADD COLUMN name_key text;
UPDATE vaults v SET name_key = lower(normalize(v.name, NFKC))
WHERE NOT EXISTS (SELECT 1 FROM vaults w
    WHERE w.org_id = v.org_id AND w.id <> v.id
      AND lower(normalize(w.name, NFKC)) = lower(normalize(v.name, NFKC)));
CREATE UNIQUE INDEX vaults_org_name_key ON vaults (org_id, name_key);
