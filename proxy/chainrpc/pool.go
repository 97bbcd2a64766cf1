package chainrpc

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"

	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/opencustody/ocv/internal/egress"
)

// Pool dials each RPC URL once and hands out the cached Client. It is safe for
// concurrent use.
type Pool struct {
	cfg Config
	hc  *http.Client // through cfg.Egress; per-call deadlines come from contexts

	mu      sync.Mutex
	closed  bool
	clients map[string]*poolEntry
}

// poolEntry is one URL's client; ready closes when the dial has finished.
type poolEntry struct {
	ready chan struct{}
	c     *Client
	err   error
}

// NewPool returns an empty Pool whose clients use cfg (zero fields take the
// defaults).
func NewPool(cfg Config) *Pool {
	cfg = cfg.withDefaults()
	if cfg.Egress == nil {
		cfg.Egress = egress.New(egress.Config{})
	}
	return &Pool{cfg: cfg, hc: cfg.Egress.Client(0), clients: make(map[string]*poolEntry)}
}

// Client returns the Client for rpcURL, dialing it on first use. Only http
// and https URLs are accepted (no IPC paths, and no websockets, whose dialer
// would not go through the outbound policy); the URL and every connection
// are judged by Config.Egress. Concurrent first calls
// for one URL share a single dial; a failed dial is not cached.
func (p *Pool) Client(ctx context.Context, rpcURL string) (*Client, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	e, found := p.clients[rpcURL]
	if !found {
		e = &poolEntry{ready: make(chan struct{})}
		p.clients[rpcURL] = e
	}
	p.mu.Unlock()

	if !found {
		e.c, e.err = p.dial(ctx, rpcURL)
		p.mu.Lock()
		switch {
		case e.err != nil:
			delete(p.clients, rpcURL)
		case p.closed: // Close ran while we dialled: do not leak the client.
			e.c.close()
			e.c, e.err = nil, ErrClosed
		}
		p.mu.Unlock()
		close(e.ready)
	}
	select {
	case <-e.ready:
		return e.c, e.err
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for rpc dial: %w", ctx.Err())
	}
}

// dial validates rpcURL and connects. Errors never mention the URL.
func (p *Pool) dial(ctx context.Context, rpcURL string) (*Client, error) {
	u, err := url.Parse(rpcURL)
	if err != nil {
		return nil, fmt.Errorf("%w: unparsable", ErrInvalidURL)
	}
	switch u.Scheme {
	case "http", "https":
	default:
		// Why: rpc.Dial treats anything else as an IPC socket path.
		return nil, fmt.Errorf("%w: scheme must be http or https", ErrInvalidURL)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%w: no host", ErrInvalidURL)
	}
	if err := p.cfg.Egress.CheckURL(rpcURL); err != nil {
		// The refusal names at most the host or the port, never the
		// path or query where providers put their keys.
		return nil, fmt.Errorf("%w: %w", ErrInvalidURL, err)
	}
	red := newRedactor(rpcURL)
	dctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	rc, err := rpc.DialOptions(dctx, rpcURL, rpc.WithHTTPClient(p.hc))
	if err != nil {
		return nil, fmt.Errorf("dialing: %w", red.newError(ctx, "dial", err))
	}
	return &Client{rc: rc, ec: ethclient.NewClient(rc), cfg: p.cfg, red: red}, nil
}

// Close closes every client; the Pool and its clients are unusable after.
func (p *Pool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	for _, e := range p.clients {
		select {
		case <-e.ready:
			if e.c != nil {
				e.c.close()
			}
		default: // still dialling: Client closes it when the dial ends
		}
	}
	clear(p.clients)
}
