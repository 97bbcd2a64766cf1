package proxy

import (
	"context"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"time"
)

// A client whose HTTP/2 connection was ended for abuse (h2Guard) waits out
// a penalty: its new connections are closed as they are accepted, before
// the TLS handshake, so that redialling costs it a TCP handshake and the
// proxy almost nothing, while its connections already open (a well-behaved
// client behind the same address) carry on. The penalty starts at
// penaltyBase and doubles with each offence that follows within
// penaltyMemory of the last one's end, up to penaltyMax. The addresses of
// trusted reverse proxies carry many clients and are never penalised (the
// abusive connection itself is still ended).
const (
	penaltyBase       = 5 * time.Second
	penaltyMax        = 5 * time.Minute
	penaltyMemory     = 10 * time.Minute
	penaltyMaxEntries = 10000
)

type penalty struct {
	until time.Time
	last  time.Duration // the length of the last penalty
}

// penaltyBox holds the penalised addresses.
type penaltyBox struct {
	exempt trustedProxies
	now    func() time.Time
	log    *slog.Logger

	mu    sync.Mutex
	boxed map[netip.Addr]penalty
}

func newPenaltyBox(exempt trustedProxies, now func() time.Time, log *slog.Logger) *penaltyBox {
	return &penaltyBox{exempt: exempt, now: now, log: log, boxed: map[netip.Addr]penalty{}}
}

// punish starts or lengthens the penalty of addr's host.
func (b *penaltyBox) punish(addr net.Addr) {
	a := parseHostAddr(addr.String())
	if !a.IsValid() || b.exempt.contains(a) {
		return
	}
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	d := penaltyBase
	if p, ok := b.boxed[a]; ok && now.Before(p.until.Add(penaltyMemory)) {
		d = min(2*p.last, penaltyMax)
	}
	if _, ok := b.boxed[a]; !ok && len(b.boxed) >= penaltyMaxEntries {
		b.sweep(now)
		if len(b.boxed) >= penaltyMaxEntries {
			return // full of live penalties: this one connection's GOAWAY must do
		}
	}
	b.boxed[a] = penalty{until: now.Add(d), last: d}
	b.log.LogAttrs(context.Background(), slog.LevelWarn, "client penalised: new connections refused",
		slog.String("client", a.String()), slog.Duration("for", d))
}

// sweep forgets the penalties that ended more than penaltyMemory ago.
// b.mu is held.
func (b *penaltyBox) sweep(now time.Time) {
	for a, p := range b.boxed {
		if !now.Before(p.until.Add(penaltyMemory)) {
			delete(b.boxed, a)
		}
	}
}

// refuses reports whether a connection from addr is refused now.
func (b *penaltyBox) refuses(addr net.Addr) bool {
	a := parseHostAddr(addr.String())
	if !a.IsValid() {
		return false
	}
	b.mu.Lock()
	p, ok := b.boxed[a]
	b.mu.Unlock()
	return ok && b.now().Before(p.until)
}

// penaltyListener closes the connections of penalised clients as it
// accepts them.
type penaltyListener struct {
	net.Listener
	box *penaltyBox
}

// Accept returns the next connection of a client not penalised.
func (l penaltyListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if !l.box.refuses(c.RemoteAddr()) {
			return c, nil
		}
		c.Close()
	}
}
