package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/opencustody/ocv/enclave/wire"
)

// maxAbandoned bounds the calls a connection remembers as given up and
// still unanswered; past it the connection is deemed wedged and dropped.
const maxAbandoned = 1024

// maxPipeline is how many calls one pooled connection carries at once.
// Calls beyond it open another connection (up to PoolSize) or wait.
const maxPipeline = 4

// writeTimeout bounds each write of queued requests.
const writeTimeout = DefaultCallTimeout

// pendingCall is one request waiting for its answer. Calls are pooled:
// the frame buffer, the done channel and the timer are reused.
type pendingCall struct {
	id   uint64 // set by send
	op   wire.Op
	done chan struct{} // one value: the answer (or the failure) is in
	// Set before done is signalled.
	code  wire.Code
	body  []byte // a copy, owned by the caller
	err   error  // *brokenError: the connection died first
	frame []byte
	timer *time.Timer
}

var callPool = sync.Pool{New: func() any {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &pendingCall{done: make(chan struct{}, 1), frame: make([]byte, 0, 1024), timer: t}
}}

func getCall(op wire.Op) *pendingCall {
	call := callPool.Get().(*pendingCall)
	call.op = op
	return call
}

// putCall returns a call whose answer was consumed or which no reader can
// signal any more (delivered, failed or abandoned under pmu).
func putCall(call *pendingCall) {
	select {
	case <-call.done:
	default:
	}
	call.timer.Stop()
	if cap(call.frame) > 64<<10 {
		call.frame = make([]byte, 0, 1024)
	}
	call.id, call.code, call.body, call.err = 0, 0, nil, nil
	callPool.Put(call)
}

// mux is the multiplexing side of a pooled connection: requests from many
// goroutines go out through one batching writer, each MAC'd with the next
// request id in the order they are queued (the enclave refuses any id not
// above the last one it saw), and one reader goroutine matches the answers,
// each checked (response flag, MAC) before it is delivered, to the calls
// by request id and operation.
type mux struct {
	bw *wire.BatchWriter

	wmu sync.Mutex // serialises sealing and queueing: ids go out in order

	pmu     sync.Mutex
	pending map[uint64]*pendingCall
	// abandoned holds the ids of calls that gave up waiting, until their
	// late answer comes: any other answer not pending is a violation.
	abandoned map[uint64]struct{}
	dead      error // set once; then pending stays empty

	rmac *wire.MAC // the reader goroutine's
}

// deadlineWriter bounds each write to the enclave.
type deadlineWriter struct{ nc net.Conn }

func (w deadlineWriter) Write(b []byte) (int, error) {
	_ = w.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
	return w.nc.Write(b)
}

// startMux turns an attested, proven connection into a multiplexed one and
// starts its reader goroutine. After it, only roundTrip uses c.
func (c *conn) startMux() {
	_ = c.nc.SetDeadline(time.Time{})
	c.mx = &mux{bw: wire.NewBatchWriter(deadlineWriter{c.nc}, 0), pending: make(map[uint64]*pendingCall),
		abandoned: make(map[uint64]struct{}), rmac: c.rmac}
	go c.readLoop()
}

// readLoop delivers answers until the connection fails.
func (c *conn) readLoop() {
	m := c.mx
	for {
		h, body, err := c.fr.Next(wire.MaxBodySize)
		if err != nil {
			c.fail(&brokenError{unwrapOpError(err)})
			return
		}
		if !h.IsResponse() {
			c.fail(&brokenError{fmt.Errorf("%w: request frame from the enclave", errProtocol)})
			return
		}
		if !m.rmac.Verify(&h, body) {
			c.fail(&brokenError{fmt.Errorf("%w: bad response MAC", errProtocol)})
			return
		}
		m.pmu.Lock()
		call := m.pending[h.RequestID]
		delete(m.pending, h.RequestID)
		_, late := m.abandoned[h.RequestID]
		delete(m.abandoned, h.RequestID)
		m.pmu.Unlock()
		switch {
		case call == nil && late:
			// The answer to a call that gave up waiting: dropped.
			clear(body)
			continue
		case call == nil || call.op != h.Op:
			c.fail(&brokenError{fmt.Errorf("%w: answer to another request", errProtocol)})
			return
		}
		call.code, call.body = h.Code, bytes.Clone(body)
		clear(body)
		call.done <- struct{}{}
	}
}

// fail marks the connection dead, closes it and fails every call waiting
// on it with err. Only the first failure counts.
func (c *conn) fail(err error) {
	m := c.mx
	m.pmu.Lock()
	if m.dead != nil {
		m.pmu.Unlock()
		return
	}
	m.dead = err
	calls := m.pending
	m.pending = nil
	m.pmu.Unlock()
	_ = c.nc.Close()
	for _, call := range calls {
		call.err = err
		call.done <- struct{}{}
	}
}

// isDead reports whether the connection failed.
func (c *conn) isDead() bool {
	m := c.mx
	m.pmu.Lock()
	defer m.pmu.Unlock()
	return m.dead != nil
}

// send seals the request in frame (body at frame[HeaderSize:]) with the
// next request id, registers call under it and queues the frame. Sealing
// and queueing happen under one lock, so ids reach the enclave in
// increasing order.
func (c *conn) send(op wire.Op, frame []byte, call *pendingCall) error {
	m := c.mx
	m.wmu.Lock()
	defer m.wmu.Unlock()
	id := c.nextID + 1
	m.pmu.Lock()
	if m.dead != nil {
		err := m.dead
		m.pmu.Unlock()
		return err
	}
	call.id = id
	m.pending[id] = call
	m.pmu.Unlock()
	c.nextID = id
	c.hdr = wire.Header{Version: wire.ProtocolVersion, Op: op, RequestID: id, Timestamp: time.Now().UnixMilli()}
	_, _ = rand.Read(c.hdr.Nonce[:])
	body := frame[wire.HeaderSize:]
	c.hdr.BodyLen = uint32(len(body))
	c.mac.Sign(&c.hdr, body)
	c.hdr.Put(frame[:wire.HeaderSize])
	if err := m.bw.Queue(frame); err != nil {
		return &brokenError{unwrapOpError(err)}
	}
	return nil
}

// abandonCall forgets a call that stopped waiting; its answer, if it
// comes later, is dropped. It reports false when the call was no longer
// pending: its answer (or failure) was signalled or is being signalled.
func (c *conn) abandonCall(call *pendingCall) bool {
	m := c.mx
	m.pmu.Lock()
	defer m.pmu.Unlock()
	if call.id != 0 && m.pending[call.id] == call {
		delete(m.pending, call.id)
		if len(m.abandoned) < maxAbandoned {
			m.abandoned[call.id] = struct{}{}
		} else {
			go c.fail(&brokenError{fmt.Errorf("%w: too many calls left unanswered", errProtocol)})
		}
		return true
	}
	return false
}

// muxRoundTrip is roundTrip on a multiplexed connection. A call that runs
// out of time (deadline or ctx) gives up alone, with an error that does
// not break the connection; the other calls on it go on.
func (c *conn) muxRoundTrip(ctx context.Context, deadline time.Time, op wire.Op, req, resp wire.Message) error {
	call := getCall(op)
	defer putCall(call)
	frame, err := req.Append(call.frame[:wire.HeaderSize])
	call.frame = frame[:0]
	if err != nil {
		return err // never sent: the connection is fine
	}
	c.used.Add(1)
	err = c.send(op, frame, call)
	clear(frame[wire.HeaderSize:]) // the request may hold a plaintext
	if err == nil {
		if err = c.mx.bw.Flush(); err != nil {
			err = &brokenError{unwrapOpError(err)}
		}
	}
	if err != nil {
		c.fail(err)
		if call.id != 0 && !c.abandonCall(call) {
			<-call.done // the failure reaches every pending call
		}
		return err
	}
	call.timer.Reset(time.Until(deadline))
	select {
	case <-call.done:
	case <-call.timer.C:
		if !c.abandonCall(call) {
			<-call.done // answered meanwhile: drop it
		}
		return fmt.Errorf("%w: %s: %w", wire.ErrUnavailable, op, os.ErrDeadlineExceeded)
	case <-ctx.Done():
		if !c.abandonCall(call) {
			<-call.done
		}
		return fmt.Errorf("%w: %s: %w", wire.ErrUnavailable, op, ctx.Err())
	}
	if call.err != nil {
		return call.err
	}
	if call.code != wire.OK {
		if call.code == wire.Unauthenticated {
			err := &brokenError{wire.Err(call.code)}
			c.fail(err)
			return err
		}
		return wire.Err(call.code)
	}
	if err := resp.Decode(call.body); err != nil {
		err := &brokenError{fmt.Errorf("%w: %w", errProtocol, err)}
		c.fail(err)
		return err
	}
	return nil
}
