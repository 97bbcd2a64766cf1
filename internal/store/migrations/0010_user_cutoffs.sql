-- OCV schema v10: per-user access token cut-offs (the human counterpart of
-- agents.tokens_valid_after). A human JWT of user_id in org_id issued
-- before tokens_valid_after is refused (see proxy/auth UserCutoffs).
--
-- A table rather than a column of org_members or users: removing a member
-- deletes its org_members row and deleting a user deletes its users row,
-- yet the cut-off must outlive both for as long as a token can live. Hence
-- no foreign keys. org_id is the nil UUID for a cut-off that applies in
-- every organization (password change or set, user deletion); membership
-- changes (role change, removal) cut off one organization.
CREATE TABLE user_token_cutoffs (
    user_id            uuid NOT NULL,
    org_id             uuid NOT NULL,
    tokens_valid_after timestamptz NOT NULL,
    PRIMARY KEY (user_id, org_id)
);
CREATE INDEX user_token_cutoffs_after ON user_token_cutoffs (tokens_valid_after);
