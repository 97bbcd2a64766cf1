package obs

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// ClientAttr is the attribute that names a log line's client when its
// context carries none (see WithClient).
const ClientAttr = "client_ip"

// overflowClient is the shared budget of the clients beyond MaxClients.
const overflowClient = "other"

// Defaults of ClientLimit.
const (
	DefaultLinesPerSecond = 50
	DefaultMaxClients     = 10000
)

// logWindow is the period each client's budget of lines covers.
const logWindow = time.Second

type clientKey struct{}

// WithClient returns ctx carrying client, the address a ClientLimiter
// counts a line logged with ctx against.
func WithClient(ctx context.Context, client string) context.Context {
	return context.WithValue(ctx, clientKey{}, client)
}

// ClientFrom returns the client WithClient put in ctx, or "".
func ClientFrom(ctx context.Context) string {
	c, _ := ctx.Value(clientKey{}).(string)
	return c
}

// ClientLimit configures NewClientLimiter.
type ClientLimit struct {
	// PerSecond is how many lines one client may cause per second
	// (DefaultLinesPerSecond when zero).
	PerSecond int
	// MaxClients bounds the clients tracked at once; the lines of clients
	// beyond it share one budget under the name "other" (DefaultMaxClients
	// when zero).
	MaxClients int
	// Now is the clock (time.Now when nil); tests set it.
	Now func() time.Time
}

// NewClientLimiter wraps h so that no client can flood the log: a line
// logged with a context that carries a client (WithClient), or with a
// client_ip attribute, counts against that client's budget of
// lim.PerSecond lines per one-second window, and the lines beyond it are
// dropped and counted. Once the window is over, the next line handled by
// any logger sharing the limiter first writes one warning, "log lines
// dropped", naming the client and the count. Lines without a client are
// never limited. The handler is safe for concurrent use.
func NewClientLimiter(h slog.Handler, lim ClientLimit) slog.Handler {
	if lim.Now == nil {
		lim.Now = time.Now
	}
	if lim.PerSecond <= 0 {
		lim.PerSecond = DefaultLinesPerSecond
	}
	if lim.MaxClients <= 0 {
		lim.MaxClients = DefaultMaxClients
	}
	return &clientLimiter{h: h, st: &limiterState{lim: lim, root: h, clients: map[string]*clientWindow{}}}
}

type clientLimiter struct {
	h      slog.Handler
	st     *limiterState
	client string // from a client_ip attribute of WithAttrs, else ""
}

type limiterState struct {
	lim       ClientLimit
	root      slog.Handler // summaries go here, outside any group
	mu        sync.Mutex
	clients   map[string]*clientWindow
	lastSweep time.Time
}

type clientWindow struct {
	start   time.Time
	lines   int
	dropped int
}

// dropSummary is one "log lines dropped" warning to write.
type dropSummary struct {
	client  string
	dropped int
}

// Enabled implements slog.Handler.
func (l *clientLimiter) Enabled(ctx context.Context, level slog.Level) bool {
	return l.h.Enabled(ctx, level)
}

// Handle implements slog.Handler.
func (l *clientLimiter) Handle(ctx context.Context, r slog.Record) error {
	client := l.clientOf(ctx, r)
	if client == "" {
		return l.h.Handle(ctx, r)
	}
	now := l.st.lim.Now()
	allow, summaries := l.st.admit(client, now)
	for _, s := range summaries {
		rec := slog.NewRecord(now, slog.LevelWarn, "log lines dropped", 0)
		rec.AddAttrs(slog.String(ClientAttr, s.client), slog.Int("dropped", s.dropped),
			slog.Int("limit_per_second", l.st.lim.PerSecond))
		if err := l.st.root.Handle(ctx, rec); err != nil {
			return err
		}
	}
	if !allow {
		return nil
	}
	return l.h.Handle(ctx, r)
}

// WithAttrs implements slog.Handler.
func (l *clientLimiter) WithAttrs(attrs []slog.Attr) slog.Handler {
	client := l.client
	for _, a := range attrs {
		if a.Key == ClientAttr {
			client = a.Value.String()
		}
	}
	return &clientLimiter{h: l.h.WithAttrs(attrs), st: l.st, client: client}
}

// WithGroup implements slog.Handler.
func (l *clientLimiter) WithGroup(name string) slog.Handler {
	return &clientLimiter{h: l.h.WithGroup(name), st: l.st, client: l.client}
}

// clientOf names the client of a line: the context's, the logger's
// client_ip attribute, or the record's.
func (l *clientLimiter) clientOf(ctx context.Context, r slog.Record) string {
	if c := ClientFrom(ctx); c != "" {
		return c
	}
	if l.client != "" {
		return l.client
	}
	var c string
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == ClientAttr {
			c = a.Value.String()
			return false
		}
		return true
	})
	return c
}

// admit counts one line of client at now: whether it may be written, and
// the summaries of the windows that ended with lines dropped.
func (st *limiterState) admit(client string, now time.Time) (bool, []dropSummary) {
	st.mu.Lock()
	defer st.mu.Unlock()
	var out []dropSummary
	if now.Sub(st.lastSweep) >= logWindow {
		st.lastSweep = now
		for c, w := range st.clients {
			if now.Sub(w.start) >= logWindow || now.Before(w.start) {
				if w.dropped > 0 {
					out = append(out, dropSummary{client: c, dropped: w.dropped})
				}
				delete(st.clients, c)
			}
		}
	}
	w, ok := st.clients[client]
	if !ok && len(st.clients) >= st.lim.MaxClients {
		client = overflowClient
		w, ok = st.clients[client]
	}
	if !ok {
		w = &clientWindow{start: now}
		st.clients[client] = w
	}
	if now.Sub(w.start) >= logWindow || now.Before(w.start) {
		if w.dropped > 0 {
			out = append(out, dropSummary{client: client, dropped: w.dropped})
		}
		*w = clientWindow{start: now}
	}
	if w.lines < st.lim.PerSecond {
		w.lines++
		return true, out
	}
	w.dropped++
	return false, out
}
