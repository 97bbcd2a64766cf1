package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/opencustody/ocv/api"
)

const webhookReplayUsage = "ocv webhook replay WEBHOOK_ID DELIVERY_ID | ocv webhook replay WEBHOOK_ID --from T --to T"

// webhookReplay sends deliveries again: one delivery by id, or the failed
// (dead-letter) deliveries created in [--from, --to), RFC 3339 times, at
// most 1,000 per call (the answer says whether more remain).
func webhookReplay(ctx context.Context, e *cmdEnv, args []string) error {
	fs := e.flags("ocv webhook replay", webhookReplayUsage)
	from := fs.String("from", "", "replay the failed deliveries created at or after this RFC 3339 time")
	to := fs.String("to", "", "... and before this RFC 3339 time")
	pos, _, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	in, err := parseReplayArgs(pos, *from, *to)
	if err != nil {
		return err
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	path := "/v1/webhooks/" + url.PathEscape(in.hook) + "/deliveries/"
	if in.delivery != "" {
		body, err := c.call(ctx, http.MethodPost, path+url.PathEscape(in.delivery)+"/replay", nil, nil)
		if err != nil {
			return err
		}
		return printReplayed(e, body)
	}
	body, err := c.call(ctx, http.MethodPost, path+"replay", nil, api.WebhookReplayRange{From: &in.from, To: &in.to})
	if err != nil {
		return err
	}
	if e.g.json {
		return rawJSON(e.stdout, body)
	}
	var res api.WebhookReplayResult
	if err := json.Unmarshal(body, &res); err != nil {
		return fmt.Errorf("decoding replay result: %w", err)
	}
	fmt.Fprintf(e.stdout, "Queued %d failed deliveries again\n", res.Queued)
	if res.More {
		fmt.Fprintf(e.stdout, "More remain in the range (at most %d per call): run the same command again\n", res.Limit)
	}
	return nil
}

func printReplayed(e *cmdEnv, body []byte) error {
	if e.g.json {
		return rawJSON(e.stdout, body)
	}
	var d api.WebhookDelivery
	if err := json.Unmarshal(body, &d); err != nil {
		return fmt.Errorf("decoding delivery: %w", err)
	}
	return fields(e.stdout, [][2]string{{"delivery", d.ID}, {"event", d.Event}, {"event_id", d.EventID},
		{"status", d.Status}, {"replays", strconv.Itoa(d.Replays)}, {"next_attempt_at", d.NextAttemptAt}})
}

// replayArgs is a replay's target: one delivery, or a range of times.
type replayArgs struct {
	hook, delivery, from, to string
}

// parseReplayArgs checks the positional arguments and the --from and --to
// flags of ocv webhook replay.
func parseReplayArgs(pos []string, from, to string) (replayArgs, error) {
	bulk := from != "" || to != ""
	switch {
	case bulk && (len(pos) != 1 || from == "" || to == ""):
		return replayArgs{}, fmt.Errorf("%w: a range replay takes WEBHOOK_ID, --from and --to", ErrUsage)
	case !bulk && len(pos) != 2:
		return replayArgs{}, fmt.Errorf("%w: %s", ErrUsage, webhookReplayUsage)
	}
	for _, id := range pos {
		if !uuidRE.MatchString(id) {
			return replayArgs{}, fmt.Errorf("%w: expected webhook and delivery ids (see ocv webhook get)", ErrUsage)
		}
	}
	if !bulk {
		return replayArgs{hook: pos[0], delivery: pos[1]}, nil
	}
	for _, v := range []string{from, to} {
		if _, err := time.Parse(time.RFC3339Nano, v); err != nil {
			return replayArgs{}, fmt.Errorf("%w: --from and --to take RFC 3339 times, e.g. 2026-11-25T00:00:00Z", ErrUsage)
		}
	}
	return replayArgs{hook: pos[0], from: from, to: to}, nil
}
