package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Error classes that are not an HTTP status.
const (
	errTransport = "transport" // no answer: refused, reset, TLS failure
	errTimeout   = "timeout"   // no answer within -timeout
	errBadBody   = "bad-body"  // a 2xx whose body is not what was written
	errHSM       = "hsm"       // an in-process HSM operation failed (hsmraw)
)

// errorBackoff keeps a worker whose requests fail without an answer (a
// stopped stack) from spinning at full speed.
const errorBackoff = 50 * time.Millisecond

// scenario is one kind of request that the workers repeat.
type scenario struct {
	name string
	// request returns worker w's i-th request when c workers run.
	request func(ctx context.Context, w, i, c int) (*http.Request, error)
	// verify checks the body of a 2xx answer; nil accepts any.
	verify func(body []byte) bool
	// local, when set, replaces the HTTP request: worker w's i-th
	// operation runs inside the bench process (hsmraw) and is timed like
	// a request; an error counts in the "hsm" class.
	local func(ctx context.Context, w, i, c int) error
	// background, when set, starts load beside the workers for the whole
	// cell (h2flood.go) and returns the function that stops it.
	background func(ctx context.Context) (stop func())
}

// exec performs one operation of sc: the local operation, or sending req.
// A local success reads as status 200 with no body.
func (sc scenario) exec(ctx context.Context, hc *http.Client, req *http.Request, w, i, c int, buf *bytes.Buffer) (int, []byte, error) {
	if sc.local == nil {
		return send(hc, req, buf)
	}
	if err := sc.local(ctx, w, i, c); err != nil {
		return 0, nil, fmt.Errorf("%w: %w", ErrHSM, err)
	}
	return http.StatusOK, nil, nil
}

// secrets builds the requests of the secret scenarios for one vault.
type secrets struct {
	c        *client
	base     string // .../v1/vaults/{id}/secrets/
	putBody  []byte // {"type":"api_key","value":...}, the same for every write
	value    string
	readKeys int
}

func newSecrets(c *client, valueSize, readKeys int) (*secrets, error) {
	value := randomHex((valueSize + 1) / 2)[:valueSize]
	body, err := json.Marshal(map[string]string{"type": "api_key", "value": value})
	if err != nil {
		return nil, fmt.Errorf("encoding secret body: %w", err)
	}
	return &secrets{c: c, base: c.base + "/v1/vaults/" + c.vaultID + "/secrets/", putBody: body, value: value, readKeys: readKeys}, nil
}

func (s *secrets) newRequest(ctx context.Context, method, path string, body []byte) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.base+path, rd)
	if err != nil {
		return nil, fmt.Errorf("building request: %w", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+*s.c.token.Load())
	return req, nil
}

// write puts a new path on every request: w/c<C>/<worker>/<counter>, so
// that each write creates a secret (201) and concurrency levels never
// overwrite each other's paths.
func (s *secrets) write() scenario {
	return scenario{name: "write", request: func(ctx context.Context, w, i, c int) (*http.Request, error) {
		path := "w/c" + strconv.Itoa(c) + "/" + strconv.Itoa(w) + "/" + strconv.Itoa(i)
		return s.newRequest(ctx, http.MethodPut, path, s.putBody)
	}}
}

// read gets the pre-written paths r/0 … r/<readKeys-1> round-robin: worker w
// starts at w and strides by the number of workers, so together they sweep
// all keys in order.
func (s *secrets) read() scenario {
	return scenario{
		name: "read",
		request: func(ctx context.Context, w, i, c int) (*http.Request, error) {
			return s.newRequest(ctx, http.MethodGet, readPath((w+i*c)%s.readKeys), nil)
		},
		verify: func(body []byte) bool {
			var got struct {
				Value *string `json:"value"`
			}
			return json.Unmarshal(body, &got) == nil && got.Value != nil && *got.Value == s.value
		},
	}
}

func readPath(k int) string { return "r/" + strconv.Itoa(k) }

// prewrite writes the read scenario's keys with up to conc parallel
// requests; any failure aborts.
func (s *secrets) prewrite(ctx context.Context, hc *http.Client, conc int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	errc := make(chan error, conc)
	var wg sync.WaitGroup
	for range max(min(conc, s.readKeys), 1) {
		wg.Go(func() {
			for k := range next {
				req, err := s.newRequest(ctx, http.MethodPut, readPath(k), s.putBody)
				if err == nil {
					var status int
					status, _, err = send(hc, req, nil)
					if err == nil && status/100 != 2 {
						err = fmt.Errorf("%w: writing %s answered %d", ErrUnexpectedStatus, readPath(k), status)
					}
				}
				if err != nil {
					errc <- err
					cancel()
					return
				}
			}
		})
	}
feed:
	for k := range s.readKeys {
		select {
		case next <- k:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errc:
		return fmt.Errorf("pre-writing read keys: %w", err)
	default:
		return ctx.Err()
	}
}

// send does one request and drains the answer so that the connection goes
// back to the pool. With buf non-nil, a 2xx body is read into it.
func send(hc *http.Client, req *http.Request, buf *bytes.Buffer) (int, []byte, error) {
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	if buf != nil && resp.StatusCode/100 == 2 {
		buf.Reset()
		_, err = buf.ReadFrom(resp.Body)
		return resp.StatusCode, buf.Bytes(), err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil, err
}

// workerStats is what one worker measured; only that worker writes it.
type workerStats struct {
	hist   Histogram
	ok     uint64
	errors map[string]uint64
}

// run drives the closed loop: conc workers each send a request, wait for
// the answer and repeat, from now until warmup+duration has passed. Only
// answers that arrive inside the measured window [now+warmup,
// now+warmup+duration) count; a request in flight at the end is waited for
// (at most the client timeout) but not counted. Cancelling ctx stops the
// loop early and the result covers the time measured so far.
func run(ctx context.Context, hc *http.Client, sc scenario, conc int, warmup, duration time.Duration) Result {
	measureFrom := time.Now().Add(warmup)
	stopAt := measureFrom.Add(duration)
	if sc.background != nil {
		defer sc.background(ctx)()
	}
	stats := make([]*workerStats, conc)
	var wg sync.WaitGroup
	for w := range conc {
		st := &workerStats{errors: map[string]uint64{}}
		stats[w] = st
		wg.Go(func() { worker(ctx, hc, sc, w, conc, measureFrom, stopAt, st) })
	}
	wg.Wait()
	measured := max(min(time.Since(measureFrom), duration), 0)
	res := Result{Scenario: sc.name, Concurrency: conc, Errors: map[string]uint64{}, hist: &Histogram{},
		Interrupted: ctx.Err() != nil}
	for _, st := range stats {
		res.hist.Merge(&st.hist)
		res.OK += st.ok
		for k, v := range st.errors {
			res.Errors[k] += v
		}
	}
	res.finish(measured)
	return res
}

func worker(ctx context.Context, hc *http.Client, sc scenario, w, conc int, measureFrom, stopAt time.Time, st *workerStats) {
	var buf bytes.Buffer
	var bodyBuf *bytes.Buffer
	if sc.verify != nil {
		bodyBuf = &buf
	}
	for i := 0; ctx.Err() == nil && time.Now().Before(stopAt); i++ {
		var req *http.Request
		if sc.local == nil {
			var err error
			if req, err = sc.request(ctx, w, i, conc); err != nil {
				st.errors[errTransport]++
				return
			}
		}
		start := time.Now()
		status, body, err := sc.exec(ctx, hc, req, w, i, conc, bodyBuf)
		end := time.Now()
		if ctx.Err() != nil {
			return // interrupted: the failure is ours, not the server's
		}
		counted := !end.Before(measureFrom) && end.Before(stopAt)
		switch {
		case err != nil:
			if counted {
				st.errors[classify(err)]++
			}
			if status == 0 {
				time.Sleep(errorBackoff)
			}
		case status/100 != 2:
			if counted {
				st.errors[strconv.Itoa(status)]++
			}
		case sc.verify != nil && !sc.verify(body):
			if counted {
				st.errors[errBadBody]++
			}
		case counted:
			st.ok++
			st.hist.Record(end.Sub(start))
		}
	}
}

// classify names a failed request's error class without its text.
func classify(err error) string {
	if errors.Is(err, ErrHSM) {
		return errHSM
	}
	var te interface{ Timeout() bool }
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &te) && te.Timeout()) {
		return errTimeout
	}
	return errTransport
}
