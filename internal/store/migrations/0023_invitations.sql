-- Issue 12: invitations can be accepted. The invitee's user id is chosen
-- when it is invited (its membership is sealed then, with the inviter's
-- authority); members list only their own audit events.
ALTER TABLE org_invites ADD COLUMN user_id uuid;
CREATE INDEX org_invites_pending_user ON org_invites (email_key) WHERE accepted_at IS NULL AND user_id IS NOT NULL;
CREATE INDEX audit_events_actor ON audit_events (org_id, actor_id, id);
