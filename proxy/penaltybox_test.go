package proxy

import (
	"io"
	"log/slog"
	"net"
	"testing"
	"time"
)

func TestPenaltyBox(t *testing.T) {
	now := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	exempt, err := parseTrustedProxies([]string{"10.0.0.0/8"})
	if err != nil {
		t.Fatal(err)
	}
	box := newPenaltyBox(exempt, func() time.Time { return now }, slog.New(slog.NewTextHandler(io.Discard, nil)))
	abuser := &net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 50000}
	sameHostOtherPort := &net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 50001}
	other := &net.TCPAddr{IP: net.ParseIP("192.0.2.8"), Port: 50000}
	balancer := &net.TCPAddr{IP: net.ParseIP("10.1.2.3"), Port: 443}

	box.punish(abuser)
	box.punish(balancer)
	steps := []struct {
		name    string
		advance time.Duration
		addr    net.Addr
		refused bool
	}{
		{"the abuser's new connection", 0, sameHostOtherPort, true},
		{"another client", 0, other, false},
		{"a trusted reverse proxy is never penalised", 0, balancer, false},
		{"still inside the first penalty", penaltyBase - time.Second, abuser, true},
		{"the first penalty is over", time.Second, abuser, false},
	}
	for _, s := range steps {
		now = now.Add(s.advance)
		if got := box.refuses(s.addr); got != s.refused {
			t.Errorf("%s: refused = %v, want %v", s.name, got, s.refused)
		}
	}

	// A second offence soon after doubles the penalty, up to penaltyMax.
	box.punish(abuser)
	now = now.Add(penaltyBase + time.Second)
	if !box.refuses(abuser) {
		t.Error("a repeat offence should be penalised for twice as long")
	}
	for range 20 {
		box.punish(abuser)
	}
	now = now.Add(penaltyMax)
	if box.refuses(abuser) {
		t.Error("a penalty should never exceed penaltyMax")
	}
	// An offence long after the last is back to the first penalty.
	now = now.Add(penaltyMemory + time.Minute)
	box.punish(abuser)
	now = now.Add(penaltyBase)
	if box.refuses(abuser) {
		t.Error("an offence after penaltyMemory should start at penaltyBase again")
	}
}

func TestPenaltyBoxBounded(t *testing.T) {
	now := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	box := newPenaltyBox(nil, func() time.Time { return now }, slog.New(slog.NewTextHandler(io.Discard, nil)))
	for i := range penaltyMaxEntries + 10 {
		box.punish(&net.TCPAddr{IP: net.IPv4(198, 18, byte(i>>8), byte(i)).To4(), Port: 1})
	}
	if n := len(box.boxed); n > penaltyMaxEntries {
		t.Fatalf("%d penalties held, want at most %d", n, penaltyMaxEntries)
	}
	// Once they are long over, new offenders find room again.
	now = now.Add(penaltyBase + penaltyMemory)
	late := &net.TCPAddr{IP: net.ParseIP("203.0.113.9"), Port: 1}
	box.punish(late)
	if !box.refuses(late) {
		t.Error("a full box should make room by forgetting penalties long over")
	}
}
