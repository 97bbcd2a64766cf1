package handlers

import (
	"encoding/json"
	"math"
	"time"

	"github.com/google/uuid"
	"golang.org/x/text/unicode/norm"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/policy"
)

// TxConditionFields are the keys tx_conditions may hold, with their types.
var TxConditionFields = map[string]policy.FieldKind{
	"function_name_in": policy.KindStrings, "function_selector_in": policy.KindStrings, "erc20_amount_above": policy.KindNumberOrString,
	"value_above": policy.KindNumberOrString, "to_address_in": policy.KindStrings, "chain_in": policy.KindStrings, "intent_type_in": policy.KindStrings,
	"decode_failed": policy.KindBool, "program_id_in": policy.KindStrings, "delegate_in": policy.KindStrings,
}

func rawOrNull(b []byte) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	return b
}

func toPolicy(p store.Policy) api.Policy {
	r := p.Rule
	c := api.PolicyConditions{IPCIDRs: append([]string{}, r.Conditions.IPCIDRs...),
		EnvironmentIn: append([]string{}, r.Conditions.EnvironmentIn...)}
	if w := r.Conditions.TimeWindow; w != nil {
		c.TimeWindow = &api.PolicyTimeWindow{Start: w.Start, End: w.End, Days: []int{}}
		for _, d := range w.Days {
			c.TimeWindow.Days = append(c.TimeWindow.Days, int(d))
		}
	}
	out := api.Policy{ID: r.ID, VaultID: p.VaultID, SecretPathPattern: r.Pattern, PrincipalType: r.PrincipalType,
		PrincipalID: r.PrincipalID, Permissions: []string{}, Conditions: c, Effect: string(r.Effect), Priority: r.Priority,
		AttributeConditions: rawOrNull(p.AttributeConditions), TxConditions: rawOrNull(p.TxConditions),
		ConsensusTrigger: rawOrNull(p.ConsensusTrigger), ExpiresAt: timePtr(r.ExpiresAt),
		CreatedAt: rfc3339(p.CreatedAt), UpdatedAt: rfc3339(p.UpdatedAt)}
	for _, q := range r.Permissions {
		out.Permissions = append(out.Permissions, string(q))
	}
	return out
}

// objectField checks an optional JSON object field (null or absent: none).
func objectField(name string, raw json.RawMessage, keys map[string]policy.FieldKind) ([]byte, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil, badField(name, "must be a JSON object or null")
	}
	for k, v := range m {
		if keys == nil {
			continue
		}
		kind, ok := keys[k]
		if !ok {
			return nil, badField(name+"."+k, "is unknown")
		}
		if !kind.Matches(v) {
			return nil, badField(name+"."+k, "has the wrong JSON type")
		}
	}
	return raw, nil
}

// policyRule validates the body into a policy with id; now is the
// database's clock (h.now()), which a new expires_at must be after.
func policyRule(in api.PolicyWrite, id string, now time.Time) (store.Policy, error) {
	switch {
	case in.SecretPathPattern == nil || in.PrincipalType == nil || in.PrincipalID == nil || in.Permissions == nil:
		return store.Policy{}, problem.BadRequest(problem.TypeInvalidRequest,
			"secret_path_pattern, principal_type, principal_id and permissions are required")
	case !norm.NFC.IsNormalString(*in.SecretPathPattern):
		return store.Policy{}, badField("secret_path_pattern", "must be in Unicode NFC form")
	case in.Priority != nil && (*in.Priority < math.MinInt32 || *in.Priority > math.MaxInt32):
		return store.Policy{}, badField("priority", "must be a 32-bit integer")
	case in.ExpiresAt != nil && !in.ExpiresAt.After(now):
		return store.Policy{}, badField("expires_at", "must be in the future")
	}
	pid, err := uuid.Parse(*in.PrincipalID)
	if err != nil || len(*in.PrincipalID) != 36 {
		return store.Policy{}, badField("principal_id", "must be a UUID")
	}
	r := policy.Policy{ID: id, Pattern: *in.SecretPathPattern, PrincipalType: *in.PrincipalType, PrincipalID: pid.String(),
		Effect: policy.EffectAllow, ExpiresAt: in.ExpiresAt}
	for _, q := range in.Permissions {
		r.Permissions = append(r.Permissions, policy.Permission(q))
	}
	if in.Effect != nil {
		r.Effect = policy.Effect(*in.Effect)
	}
	if in.Priority != nil {
		r.Priority = int(*in.Priority)
	}
	if c := in.Conditions; c != nil {
		r.Conditions = policy.Conditions{IPCIDRs: c.IPCIDRs, EnvironmentIn: c.EnvironmentIn}
		if w := c.TimeWindow; w != nil {
			r.Conditions.TimeWindow = &policy.TimeWindow{Start: w.Start, End: w.End}
			for _, d := range w.Days {
				if d < 0 || d > 6 {
					return store.Policy{}, badField("conditions.time_window.days", "must hold weekdays 0 (Sunday) to 6 (Saturday)")
				}
				r.Conditions.TimeWindow.Days = append(r.Conditions.TimeWindow.Days, time.Weekday(d))
			}
		}
	}
	if err := r.Prepare(); err != nil {
		// The policy package names the field and never echoes a value.
		return store.Policy{}, problem.BadRequest(problem.TypeInvalidRequest, err.Error())
	}
	p := store.Policy{Rule: r}
	if p.AttributeConditions, err = objectField("attribute_conditions", in.AttributeConditions, nil); err != nil {
		return store.Policy{}, err
	}
	if p.TxConditions, err = objectField("tx_conditions", in.TxConditions, TxConditionFields); err != nil {
		return store.Policy{}, err
	}
	if len(p.TxConditions) > 0 && string(p.TxConditions) != "{}" {
		// The signer reads them with the same parser: refuse now what it
		// would refuse at signing time.
		if _, err := policy.ParseTxConditions(p.TxConditions); err != nil {
			return store.Policy{}, problem.BadRequest(problem.TypeInvalidRequest, "invalid tx_conditions: "+err.Error())
		}
	}
	if p.ConsensusTrigger, err = objectField("consensus_trigger", in.ConsensusTrigger, nil); err != nil {
		return store.Policy{}, err
	}
	return p, nil
}
