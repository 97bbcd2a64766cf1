-- OCV schema v5: per-organization IP allow/block rules, checked by the
-- proxy's IP filter after authentication (spec, Request processing order,
-- step 5). cidr is stored masked (netip.Prefix.Masked), IPv4 or IPv6.
CREATE TABLE ip_rules (
    org_id      uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    id          uuid NOT NULL,
    cidr        cidr NOT NULL,
    rule_type   text NOT NULL CHECK (rule_type IN ('allow', 'block')),
    description text NOT NULL DEFAULT '',
    created_by  uuid NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, id)
);
CREATE UNIQUE INDEX ip_rules_org_cidr ON ip_rules (org_id, rule_type, cidr);
