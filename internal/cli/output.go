package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode"
)

// clean makes server-provided text safe to print on a terminal: control
// characters (escape sequences included) become '?'.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, s)
}

// table prints rows under headers, aligned, every cell cleaned.
func table(w io.Writer, headers []string, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(headers, "\t"))
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = clean(c)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

// fields prints key/value pairs one per line.
func fields(w io.Writer, kv [][2]string) error {
	rows := make([][]string, len(kv))
	for i, p := range kv {
		rows[i] = []string{p[0] + ":", p[1]}
	}
	tw := tabwriter.NewWriter(w, 0, 4, 1, ' ', 0)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\n", r[0], clean(r[1]))
	}
	return tw.Flush()
}

// rawJSON prints an API answer as it came, with a final newline.
func rawJSON(w io.Writer, body []byte) error {
	if _, err := w.Write(body); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	if len(body) == 0 || body[len(body)-1] != '\n' {
		_, _ = io.WriteString(w, "\n")
	}
	return nil
}

func orDash(s *string) string {
	if s == nil || *s == "" {
		return "-"
	}
	return *s
}

// listCommand is `ocv <noun> list`: it follows every page of path and
// prints the API's JSON with --json, else a table with one row per item.
func listCommand[T any](ctx context.Context, e *cmdEnv, args []string, noun, path string, headers []string, row func(T) []string) error {
	fs := e.flags("ocv "+noun+" list", "ocv "+noun+" list")
	if _, err := positional(fs, args); err != nil {
		return err
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	items, err := listAll(ctx, c, path, nil)
	if err != nil {
		return err
	}
	if e.g.json {
		return listJSON(e, items)
	}
	rows := make([][]string, 0, len(items))
	for _, raw := range items {
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			return fmt.Errorf("decoding %s: %w", noun, err)
		}
		rows = append(rows, row(v))
	}
	return table(e.stdout, headers, rows)
}
