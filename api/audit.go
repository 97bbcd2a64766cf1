package api

// AuditEvent is one event of an organization's audit log; the chain
// fields are null until the sealer has chained the event.
type AuditEvent struct {
	ID         int64   `json:"id"`
	OccurredAt string  `json:"occurred_at"`
	RequestID  string  `json:"request_id"`
	ActorType  string  `json:"actor_type"`
	ActorID    string  `json:"actor_id"`
	Action     string  `json:"action"`
	Resource   string  `json:"resource"`
	Outcome    string  `json:"outcome"`
	Status     int     `json:"status"`
	ClientIP   string  `json:"client_ip"`
	ChainSeq   *int64  `json:"chain_seq"`
	PrevID     *int64  `json:"prev_id"`
	Hash       *string `json:"hash"`
}
