package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/opencustody/ocv/internal/auditchain"
)

// EmitEvent records event name for orgID with data inside tx, the
// transaction of the change it reports: one events row and, in the same
// statement, one webhook_deliveries row (the outbox) per active webhook of
// the organization subscribed to name. The event exists if and only if the
// change commits. Event-triggered automations will read the same events
// rows. It returns the event id.
func EmitEvent(ctx context.Context, tx pgx.Tx, orgID, name string, data any) (string, error) {
	id, args, err := eventArgsFor(orgID, name, data)
	if err != nil {
		return "", err
	}
	if _, err := tx.Exec(ctx, emitEventSQL, args...); err != nil {
		return "", fmt.Errorf("emitting event %s: %w", name, err)
	}
	return id, nil
}

// emitEventSQL inserts one events row and its outbox rows ($1 org, $2 id,
// $3 name, $4 data).
const emitEventSQL = `WITH ev AS (INSERT INTO events (org_id, id, name, data) VALUES ($1, $2, $3, $4) RETURNING id)
	INSERT INTO webhook_deliveries (id, org_id, webhook_id, event_id)
	SELECT gen_random_uuid(), $1, w.id, ev.id FROM webhooks w, ev
	WHERE w.org_id = $1 AND w.is_active AND $3 = ANY (w.events)`

// eventArgsFor makes a new event id and the arguments of emitEventSQL.
func eventArgsFor(orgID, name string, data any) (string, []any, error) {
	body, err := json.Marshal(data)
	if err != nil {
		return "", nil, fmt.Errorf("encoding event data: %w", err)
	}
	if data == nil {
		body = []byte("{}")
	}
	id := uuid.Must(uuid.NewV7()).String()
	return id, []any{orgID, id, name, body}, nil
}

// policyEventData is the data of policy.created, policy.updated and
// policy.deleted events.
func policyEventData(p Policy, actorType, actorID string) map[string]string {
	return map[string]string{"policy_id": p.Rule.ID, "vault_id": p.VaultID, "principal_type": p.Rule.PrincipalType,
		"principal_id": p.Rule.PrincipalID, "actor_type": actorType, "actor_id": actorID}
}

// emitPolicyEvent emits a policy event for p, naming ev's actor.
func emitPolicyEvent(ctx context.Context, tx pgx.Tx, name string, p Policy, ev *auditchain.Event) error {
	var actorType, actorID string
	if ev != nil {
		actorType, actorID = ev.ActorType, ev.ActorID
	}
	_, err := EmitEvent(ctx, tx, p.OrgID, name, policyEventData(p, actorType, actorID))
	return err
}
