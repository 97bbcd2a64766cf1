package handlers

import (
	"errors"
	"unicode/utf8"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/proxy/webhooks"
)

// Webhook limits (documented in api/openapi.yaml).
const (
	WebhookSecretPrefix   = "whsec_"
	maxWebhookURL         = 2048
	maxWebhookEvents      = 64
	maxWebhookDescription = 1024
	recentDeliveries      = 20
)

// checkWebhookURL answers 400 invalid_url for a refused destination. The
// detail names the rule, never the URL (it may carry credentials or tokens).
func (h *Handlers) checkWebhookURL(raw string) error {
	if len(raw) > maxWebhookURL {
		return problem.BadRequest(problem.TypeInvalidURL, "url must be at most 2048 bytes")
	}
	err := webhooks.ValidateURL(raw, h.Webhooks)
	if err == nil {
		return nil
	}
	detail := "url is not an allowed webhook destination"
	switch {
	case errors.Is(err, webhooks.ErrUnsupportedScheme):
		detail = "url must use https"
	case errors.Is(err, webhooks.ErrUserinfo):
		detail = "url must not carry user credentials"
	case errors.Is(err, webhooks.ErrEmptyHost), errors.Is(err, webhooks.ErrInvalidHost), errors.Is(err, webhooks.ErrInvalidURL):
		detail = "url is not a valid absolute http(s) URL with a host"
	case errors.Is(err, webhooks.ErrForbiddenHost):
		detail = "url names a local, internal or cloud metadata host"
	case errors.Is(err, webhooks.ErrForbiddenAddress):
		detail = "url points to a private, loopback, link-local, reserved or metadata address"
	case errors.Is(err, webhooks.ErrPortNotAllowed):
		detail = "url port is not allowed (443 and 80 only, unless the operator's OCV_EGRESS_ALLOW lists it)"
	}
	return problem.BadRequest(problem.TypeInvalidURL, detail)
}

func checkWebhookEvents(events []string) ([]string, error) {
	if len(events) == 0 || len(events) > maxWebhookEvents {
		return nil, problem.BadRequest(problem.TypeInvalidRequest, "events must name 1 to 64 event names")
	}
	seen := map[string]bool{}
	out := make([]string, 0, len(events))
	for _, e := range events {
		if !webhooks.IsKnownEvent(e) {
			return nil, problem.BadRequest(problem.TypeInvalidRequest, "events may hold only documented event names")
		}
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	return out, nil
}

func checkDescription(d *string) error {
	if d != nil && (len(*d) > maxWebhookDescription || !utf8.ValidString(*d)) {
		return problem.BadRequest(problem.TypeInvalidRequest, "description must be valid UTF-8 of at most 1024 bytes")
	}
	return nil
}
