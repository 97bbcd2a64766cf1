package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/opencustody/ocv/api"
)

// redactURL hides a destination's query (it may carry a token) in tables.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable)"
	}
	if u.RawQuery != "" {
		u.RawQuery = "…"
	}
	u.User = nil
	return u.String()
}

func printWebhook(e *cmdEnv, body []byte) error {
	if e.g.json {
		return rawJSON(e.stdout, body)
	}
	var w api.Webhook
	if err := json.Unmarshal(body, &w); err != nil {
		return fmt.Errorf("decoding webhook: %w", err)
	}
	kv := [][2]string{{"id", w.ID}, {"url", redactURL(w.URL)}, {"events", strings.Join(w.Events, ",")},
		{"description", w.Description}, {"active", strconv.FormatBool(w.IsActive)}, {"created_at", w.CreatedAt},
		{"updated_at", w.UpdatedAt}}
	if w.Secret != "" {
		kv = append(kv, [2]string{"secret", w.Secret + "  (shown once: store it now to verify X-Webhook-Signature)"})
	}
	if err := fields(e.stdout, kv); err != nil {
		return err
	}
	if w.Deliveries == nil || len(*w.Deliveries) == 0 {
		return nil
	}
	fmt.Fprintln(e.stdout)
	rows := make([][]string, 0, len(*w.Deliveries))
	for _, d := range *w.Deliveries {
		last := "-"
		if d.LastStatus != nil {
			last = strconv.Itoa(*d.LastStatus)
		}
		rows = append(rows, []string{d.ID, d.Event, d.Status, strconv.Itoa(d.Attempt), last, orDash(d.LastError), d.UpdatedAt})
	}
	return table(e.stdout, []string{"DELIVERY", "EVENT", "STATUS", "ATTEMPT", "HTTP", "ERROR", "UPDATED"}, rows)
}

// webhookID parses the flags and the one webhook ID argument.
func webhookID(fs *flag.FlagSet, args []string) (string, error) {
	pos, err := positional(fs, args, "ID")
	if err != nil {
		return "", err
	}
	if !uuidRE.MatchString(pos[0]) {
		return "", fmt.Errorf("%w: expected a webhook id (see ocv webhook list)", ErrUsage)
	}
	return pos[0], nil
}

func webhookCall(ctx context.Context, e *cmdEnv, method, id string, in any) ([]byte, error) {
	c, err := e.client()
	if err != nil {
		return nil, err
	}
	return c.call(ctx, method, "/v1/webhooks/"+url.PathEscape(id), nil, in)
}

func webhookCreate(ctx context.Context, e *cmdEnv, args []string) error {
	fs := e.flags("ocv webhook create", "ocv webhook create URL --event NAME [--event NAME ...] [--description D]")
	var events listFlag
	fs.Var(&events, "event", "event name to deliver, e.g. policy.created (repeatable)")
	desc := fs.String("description", "", "what the webhook is for")
	pos, err := positional(fs, args, "URL")
	if err != nil {
		return err
	}
	if len(events) == 0 {
		return fmt.Errorf("%w: at least one --event is required", ErrUsage)
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	body, err := c.call(ctx, http.MethodPost, "/v1/webhooks", nil,
		api.WebhookCreate{URL: &pos[0], Events: events, Description: desc})
	if err != nil {
		return err
	}
	return printWebhook(e, body)
}

func webhookList(ctx context.Context, e *cmdEnv, args []string) error {
	return listCommand(ctx, e, args, "webhook", "/v1/webhooks", []string{"ID", "URL", "EVENTS", "ACTIVE", "DESCRIPTION"},
		func(w api.Webhook) []string {
			return []string{w.ID, redactURL(w.URL), strings.Join(w.Events, ","), strconv.FormatBool(w.IsActive), w.Description}
		})
}

func webhookGet(ctx context.Context, e *cmdEnv, args []string) error {
	id, err := webhookID(e.flags("ocv webhook get", "ocv webhook get ID   (with its recent deliveries)"), args)
	if err != nil {
		return err
	}
	body, err := webhookCall(ctx, e, http.MethodGet, id, nil)
	if err != nil {
		return err
	}
	return printWebhook(e, body)
}

func webhookUpdate(ctx context.Context, e *cmdEnv, args []string) error {
	fs := e.flags("ocv webhook update", "ocv webhook update ID [--endpoint URL] [--event NAME ...] [--description D] [--active=true|false]")
	var events listFlag
	fs.Var(&events, "event", "replace the event names (repeatable)")
	u := fs.String("endpoint", "", "new destination URL (--url is the API's base URL)")
	desc := fs.String("description", "", "new description")
	active := fs.String("active", "", "true or false: resume or pause deliveries")
	id, err := webhookID(fs, args)
	if err != nil {
		return err
	}
	var in api.WebhookPatch
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "endpoint":
			in.URL = u
		case "description":
			in.Description = desc
		}
	})
	if len(events) > 0 {
		in.Events = events
	}
	if *active != "" {
		b, err := strconv.ParseBool(*active)
		if err != nil {
			return fmt.Errorf("%w: --active takes true or false", ErrUsage)
		}
		in.IsActive = &b
	}
	if in.URL == nil && in.Events == nil && in.Description == nil && in.IsActive == nil {
		return fmt.Errorf("%w: nothing to update (give --endpoint, --event, --description or --active)", ErrUsage)
	}
	body, err := webhookCall(ctx, e, http.MethodPatch, id, in)
	if err != nil {
		return err
	}
	return printWebhook(e, body)
}

func webhookDelete(ctx context.Context, e *cmdEnv, args []string) error {
	id, err := webhookID(e.flags("ocv webhook delete", "ocv webhook delete ID"), args)
	if err != nil {
		return err
	}
	if _, err := webhookCall(ctx, e, http.MethodDelete, id, nil); err != nil {
		return err
	}
	if e.g.json {
		return rawJSON(e.stdout, []byte(`{"deleted":true}`))
	}
	fmt.Fprintf(e.stdout, "Deleted webhook %s\n", id)
	return nil
}
