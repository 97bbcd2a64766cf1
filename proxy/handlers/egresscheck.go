package handlers

import (
	"encoding/json"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/egress"
)

// egressPolicy is the outbound policy admin-set URLs are judged by; without
// one (unit tests) the strict default applies.
func (h *Handlers) egressPolicy() *egress.Policy {
	if h.Egress != nil {
		return h.Egress
	}
	return egress.New(egress.Config{})
}

// checkOutboundURL answers 400 invalid_url when the outbound policy refuses
// raw (a loopback, private or metadata literal, a local name, a port that
// is not allowed). The connection is judged again when it is made. The
// detail names the field and the rule, never the URL.
func (h *Handlers) checkOutboundURL(field, raw string) error {
	if err := h.egressPolicy().CheckURL(raw); err != nil {
		return problem.BadRequest(problem.TypeInvalidURL, field+": "+egress.Describe(err))
	}
	return nil
}

// checkX402Outbound judges the facilitator_url of an x402 setting value
// (already checked by parseX402).
func (h *Handlers) checkX402Outbound(value json.RawMessage) error {
	var c api.AdminX402Write
	if err := json.Unmarshal(value, &c); err != nil || c.FacilitatorURL == "" {
		return nil // parseX402 has judged the shape
	}
	return h.checkOutboundURL("facilitator_url", c.FacilitatorURL)
}
