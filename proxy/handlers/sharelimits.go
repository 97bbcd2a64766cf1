package handlers

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/passhash"
	"github.com/opencustody/ocv/internal/store"
)

// TypeShareThrottled is the problem type (HTTP 429, with Retry-After) of a
// share open refused because too many attempts failed, or because the
// passphrase checks are all busy.
const TypeShareThrottled = "share_throttled"

// Share-open limits (documented in api/openapi.yaml). Failures are counted
// in PostgreSQL in fixed windows, so that every proxy replica agrees.
const (
	// ShareAttemptWindow is the length of a counting window.
	ShareAttemptWindow = 15 * time.Minute
	// ShareFailuresPerShare: wrong passphrases (or addresses) per share with
	// a passphrase and window.
	ShareFailuresPerShare = 5
	// ShareFailuresPerAddress: failed opens (wrong passphrase, unknown share,
	// share addressed to someone else) per client address (IPv6: per /64)
	// and window.
	ShareFailuresPerAddress = 20
	// sharePassphraseSlots bounds concurrent share passphrase derivations, on
	// a pool of their own: share links cannot starve sign-in.
	sharePassphraseSlots = 4
	// sharePoolWait is how long a passphrase check waits for a slot before
	// the request is refused (429 share_throttled, Retry-After 1).
	sharePoolWait = 250 * time.Millisecond
)

var sharePool = passhash.NewPool(sharePassphraseSlots)

var errSharePoolBusy = errors.New("share passphrase checks busy")

// shareThrottled sets Retry-After (whole seconds, at least one) and returns
// the 429 problem.
func shareThrottled(w http.ResponseWriter, wait time.Duration, detail string) error {
	secs := int64((wait + time.Second - 1) / time.Second)
	w.Header().Set("Retry-After", strconv.FormatInt(max(secs, 1), 10))
	return problem.New(http.StatusTooManyRequests, TypeShareThrottled, detail)
}

const throttledDetail = "too many failed attempts to open shares; retry after the Retry-After delay"

// shareAddressKey is the counter of a client address: the address itself,
// or its /64 for IPv6 (one host usually holds a whole /64).
func shareAddressKey(clientIP string) store.ShareAttempt {
	key := "addr:unknown"
	if ip, err := netip.ParseAddr(clientIP); err == nil {
		ip = ip.Unmap()
		if ip.Is6() {
			pfx, _ := ip.Prefix(64)
			key = "addr:" + pfx.String()
		} else {
			key = "addr:" + ip.String()
		}
	}
	return store.ShareAttempt{Key: key, Limit: ShareFailuresPerAddress}
}

func shareKey(id string) store.ShareAttempt {
	return store.ShareAttempt{Key: "share:" + id, Limit: ShareFailuresPerShare}
}

// shareAddressBudget refuses an address that used up its failures.
func (h *Handlers) shareAddressBudget(ctx context.Context, w http.ResponseWriter, addr store.ShareAttempt, now time.Time) error {
	wait, err := h.Shares.ShareAttemptWait(ctx, []store.ShareAttempt{addr}, ShareAttemptWindow, now)
	if err != nil {
		return err
	}
	if wait > 0 {
		return shareThrottled(w, wait, throttledDetail)
	}
	return nil
}

// shareMiss counts a failed open against the address (an unknown share, or
// one addressed to someone else: a guess) and answers 404, or 429 when
// that was one failure too many.
func (h *Handlers) shareMiss(ctx context.Context, w http.ResponseWriter, addr store.ShareAttempt, now time.Time) error {
	wait, err := h.Shares.CountShareAttempt(ctx, []store.ShareAttempt{addr}, ShareAttemptWindow, now)
	if err != nil {
		return err
	}
	if wait > 0 {
		return shareThrottled(w, wait, throttledDetail)
	}
	return problem.NotFound("share")
}

// checkShareAttempt checks the passphrase and allowlist. A share with a
// passphrase counts the attempt per share and per address first (so that
// concurrent guesses cannot overrun a limit) and gives it back when it
// succeeds; past a limit the passphrase is not even derived. A share with
// only an allowlist is not counted (nothing to guess; counting would let
// anyone lock its allowed recipients out).
func (h *Handlers) checkShareAttempt(ctx context.Context, w http.ResponseWriter, sh store.Share, addr store.ShareAttempt,
	passphrase, clientIP string, now time.Time) error {
	if sh.PassphraseHash == nil {
		return checkShareCredentials(ctx, sh, passphrase, clientIP)
	}
	counters := []store.ShareAttempt{shareKey(sh.ID), addr}
	wait, err := h.Shares.CountShareAttempt(ctx, counters, ShareAttemptWindow, now)
	if err != nil {
		return err
	}
	if wait > 0 {
		return shareThrottled(w, wait, "too many failed attempts to open this share; retry after the Retry-After delay")
	}
	err = checkShareCredentials(ctx, sh, passphrase, clientIP)
	if err == nil || errors.Is(err, errSharePoolBusy) {
		if ferr := h.Shares.ForgiveShareAttempt(ctx, counters); ferr != nil {
			return ferr
		}
	}
	if errors.Is(err, errSharePoolBusy) {
		return shareThrottled(w, time.Second, "share passphrase checks are busy; retry after the Retry-After delay")
	}
	return err
}

// verifySharePassphrase checks a passphrase on the share pool, waiting at
// most sharePoolWait for a slot (errSharePoolBusy then). A passphrase over
// the length bound is wrong without a derivation.
func verifySharePassphrase(ctx context.Context, hash, passphrase string) error {
	if len(passphrase) > maxSharePassphrase {
		return passhash.ErrMismatch
	}
	wctx, cancel := context.WithTimeout(ctx, sharePoolWait)
	defer cancel()
	err := sharePool.Verify(wctx, hash, passphrase)
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return errSharePoolBusy
	}
	return err
}

// hashSharePassphrase hashes a new share's passphrase on the share pool;
// 429 share_throttled when the pool stays full.
func hashSharePassphrase(ctx context.Context, w http.ResponseWriter, passphrase string) (string, error) {
	wctx, cancel := context.WithTimeout(ctx, sharePoolWait)
	defer cancel()
	hash, err := sharePool.Hash(wctx, passphrase)
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return "", shareThrottled(w, time.Second, "share passphrase checks are busy; retry after the Retry-After delay")
	}
	return hash, err
}
