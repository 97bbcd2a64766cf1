package enclave

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/opencustody/ocv/enclave/internal/ops"
	"github.com/opencustody/ocv/enclave/wire"
)

// maxHandshakeBody bounds the first frame, before anything is known about
// the peer.
const maxHandshakeBody = 1024

// opTimeout bounds the handshake's attestation and each response write.
const opTimeout = 30 * time.Second

// maxOffload bounds the long operations one connection runs off its
// reader goroutine at once; past it they run inline (the reader stops
// reading, which pushes back on the peer).
const maxOffload = 8

// session is one connection's state. The reader goroutine owns everything
// but the response side (wmu and what it guards, bw, served), which the
// workers running long operations share.
type session struct {
	id      uint64
	nc      net.Conn
	br      *bufio.Reader
	fr      *wire.FrameReader
	mac     *wire.MAC // verifies requests; nil until the handshake derived a key
	replay  *replayGuard
	wbuf    []byte
	scratch ops.Scratch
	// transcript is the handshake's, which the peer's proof must sign.
	transcript wire.PeerTranscript

	// wmu guards smac and hdr: responses are MAC'd one at a time.
	wmu  sync.Mutex
	smac *wire.MAC // signs responses; nil until the handshake derived a key
	hdr  wire.Header
	// bw coalesces the responses that are ready at once into one write.
	bw       *wire.BatchWriter
	served   atomic.Int64
	offload  chan struct{} // one token per long operation off the reader
	inFlight sync.WaitGroup
}

// deadlineWriter bounds each write to the peer by opTimeout.
type deadlineWriter struct{ nc net.Conn }

func (w deadlineWriter) Write(b []byte) (int, error) {
	_ = w.nc.SetWriteDeadline(time.Now().Add(opTimeout))
	return w.nc.Write(b)
}

// serveConn runs one connection: the handshake, then requests until the
// peer leaves, a frame fails authentication or the server closes.
func (s *Server) serveConn(nc net.Conn, id uint64) {
	br := bufio.NewReaderSize(nc, 32<<10)
	ss := &session{id: id, nc: nc, br: br, fr: wire.NewFrameReader(br), wbuf: make([]byte, 0, 4096),
		bw: wire.NewBatchWriter(deadlineWriter{nc}, 0), offload: make(chan struct{}, maxOffload)}
	s.log.Info("enclave connection opened", "conn", id)
	reason := s.handshake(ss)
	if reason == "" {
		s.log.Info("enclave session attested", "conn", id)
		reason = s.authenticatePeer(ss)
	}
	if reason == "" {
		reason = s.loop(ss)
	}
	ss.inFlight.Wait()
	if err := ss.bw.Close(); err != nil && reason == "" {
		reason = "write: " + err.Error()
	}
	clear(ss.wbuf[:cap(ss.wbuf)])
	s.log.Info("enclave connection closed", "conn", id, "requests", ss.served.Load(), "reason", reason)
}

// handshake reads the Attest frame, derives the session key and answers
// with the attestation document. It returns "" on success, else why the
// connection ends. The read deadline stays for the peer proof
// (authenticatePeer).
func (s *Server) handshake(ss *session) string {
	// Deadlines use the real clock; opts.now only judges frame freshness.
	s.setReadDeadline(ss.nc, time.Now().Add(s.opts.handshakeTimeout))
	h, body, err := ss.fr.Next(maxHandshakeBody)
	if err != nil {
		return readReason(err)
	}
	if h.Op != wire.OpAttest || h.IsResponse() {
		s.reply(ss, &h, wire.BadRequest)
		return "first frame is not attest"
	}
	var req wire.AttestRequest
	if err := req.Decode(body); err != nil || len(req.Nonce) < wire.MinHandshakeNonce {
		s.reply(ss, &h, wire.BadRequest)
		return "malformed attest request"
	}
	peer, err := wire.ParseX25519PublicKey(req.ProxyPublicKey)
	if err != nil {
		s.reply(ss, &h, wire.BadRequest)
		return "bad proxy channel key"
	}
	key, err := wire.DeriveSessionKey(s.priv, peer, req.Nonce, req.ProxyPublicKey, s.pub)
	if err != nil {
		s.reply(ss, &h, wire.BadRequest)
		return "deriving session key failed"
	}
	ss.mac, ss.smac = wire.NewMAC(key), wire.NewMAC(key)
	clear(key[:])
	ctx, cancel := context.WithTimeout(s.baseCtx, opTimeout)
	doc, err := s.handler.Attest(ctx, req.Nonce)
	cancel()
	if err != nil {
		s.log.Warn("enclave attestation failed", "conn", ss.id, "error", err.Error())
		s.reply(ss, &h, wire.CodeOf(err))
		return "issuing attestation document failed"
	}
	if ss.transcript, err = wire.NewPeerTranscript(req.Nonce, req.ProxyPublicKey, s.pub, doc); err != nil {
		s.reply(ss, &h, wire.BadRequest)
		return "building the handshake transcript failed"
	}
	ss.wbuf = ss.wbuf[:wire.HeaderSize]
	if ss.wbuf, err = (&wire.AttestResponse{Document: doc}).Append(ss.wbuf); err != nil {
		s.reply(ss, &h, wire.Internal)
		return "encoding attestation document failed"
	}
	if err := s.send(ss, &h, wire.OK); err != nil {
		return "write: " + err.Error()
	}
	ss.replay = newReplayGuard(h.RequestID)
	return ""
}

// next reads the session's next MAC'd frame of at most max body bytes and
// checks it (MAC, freshness, replay). A non-empty end says why the
// connection ends (answered already where an answer is due); otherwise code
// is the frame's verdict, OK or a refusal for this frame only.
func (s *Server) next(ss *session, max int, what string) (h wire.Header, body []byte, code wire.Code, end string) {
	h, body, err := ss.fr.Next(max)
	if err != nil {
		if errors.Is(err, wire.ErrBadRequest) {
			s.reply(ss, &h, wire.BadRequest)
			return h, nil, wire.BadRequest, "malformed frame" + what
		}
		return h, nil, wire.OK, readReason(err)
	}
	code, end = s.check(ss, &h, body)
	if end != "" {
		s.reply(ss, &h, code)
	}
	return h, body, code, end
}

// loop serves authenticated requests. Short operations run here, on the
// goroutine that read them, and their answers are queued; the queue is
// written in one go when no further request is already buffered, so
// requests the peer pipelined are answered in one write. Long operations
// (HSM-bound, see offloaded) run on a bounded set of workers, so they
// hold up neither the reading nor the short operations behind them;
// answers are matched to requests by request id. Every frame is still
// checked here in arrival order (MAC, freshness, replay, strictly
// increasing ids) before anything runs.
func (s *Server) loop(ss *session) string {
	for {
		if ss.br.Buffered() < wire.HeaderSize {
			if err := ss.bw.Flush(); err != nil {
				return "write: " + err.Error()
			}
		}
		h, body, code, end := s.next(ss, wire.MaxBodySize, "")
		if end != "" {
			return end
		}
		if code != wire.OK {
			s.log.Warn("enclave frame rejected", "conn", ss.id, "op", h.Op.String(), "code", code.String())
			s.reply(ss, &h, code)
			continue
		}
		if offloaded(h.Op) && ss.takeWorker() {
			req := bytes.Clone(body)
			ss.inFlight.Add(1)
			go s.work(ss, h, req)
			continue
		}
		// No per-request timer: the proxy bounds each call, and key-store
		// calls end when the shutdown grace is over (baseCtx).
		var err error
		ss.wbuf, err = s.handler.Handle(s.baseCtx, h.Op, body, ss.wbuf[:wire.HeaderSize], &ss.scratch)
		if err := s.answer(ss, &h, ss.wbuf, err, false); err != nil {
			return "write: " + err.Error()
		}
	}
}

// offloaded reports whether op is long enough (an HSM signature, key
// generation or destruction) to run off the reader goroutine.
func offloaded(op wire.Op) bool {
	switch op {
	case wire.OpSignIntent, wire.OpSigningKey, wire.OpDestroySigningKey, wire.OpCreateKEK, wire.OpMintToken, wire.OpExtendAuditHead:
		return true
	}
	return false
}

// takeWorker reserves a worker slot, if one is free.
func (ss *session) takeWorker() bool {
	select {
	case ss.offload <- struct{}{}:
		return true
	default:
		return false
	}
}

// work runs one long operation and sends its answer. A write failure
// shows in ss.bw, which the reader checks before its next read.
func (s *Server) work(ss *session, h wire.Header, body []byte) {
	defer ss.inFlight.Done()
	defer func() { <-ss.offload }()
	out, err := s.handler.Handle(s.baseCtx, h.Op, body, make([]byte, wire.HeaderSize, 512), &ops.Scratch{})
	clear(body) // the request may hold a plaintext
	_ = s.answer(ss, &h, out, err, true)
}

// answer logs a failed operation and sends its answer: out[HeaderSize:]
// when err is nil, else an empty body with err's code. flush sends it now;
// otherwise it is queued for the reader's next flush.
func (s *Server) answer(ss *session, h *wire.Header, out []byte, err error, flush bool) error {
	code := wire.CodeOf(err)
	switch {
	case code == wire.Forbidden:
		// The proxy checks the same policies first, so a refusal here
		// means the two disagree (a race with a policy change or an
		// expiring token, or a proxy that is not behaving). The reason
		// is fixed text: never a token, a value or a policy id.
		s.log.Info("enclave refused an operation", "conn", ss.id, "op", h.Op.String(), "reason", err.Error())
	case err != nil:
		s.log.Debug("enclave operation failed", "conn", ss.id, "op", h.Op.String(), "code", code.String(), "error", err.Error())
	}
	if err != nil {
		out = out[:wire.HeaderSize]
	}
	ss.served.Add(1)
	return s.emit(ss, h, code, out, flush)
}

// check authenticates a request frame. A non-empty reason means the
// connection must close after answering code.
func (s *Server) check(ss *session, h *wire.Header, body []byte) (wire.Code, string) {
	if h.IsResponse() {
		return wire.BadRequest, "response frame from the proxy"
	}
	if !ss.mac.Verify(h, body) {
		s.log.Warn("enclave frame rejected", "conn", ss.id, "op", h.Op.String(), "code", wire.Unauthenticated.String())
		return wire.Unauthenticated, "bad frame MAC"
	}
	now := s.opts.now()
	if !wire.Fresh(h.Timestamp, now) {
		return wire.Stale, ""
	}
	if !ss.replay.accept(h.RequestID, h.Nonce, h.Timestamp, now.UnixMilli()) {
		return wire.Replay, ""
	}
	if !h.Op.Valid() {
		return wire.BadRequest, ""
	}
	return wire.OK, ""
}

// reply answers req with an empty body and code.
func (s *Server) reply(ss *session, req *wire.Header, code wire.Code) {
	ss.wbuf = ss.wbuf[:wire.HeaderSize]
	_ = s.send(ss, req, code)
}

// send writes the response whose body is ss.wbuf[HeaderSize:] now.
func (s *Server) send(ss *session, req *wire.Header, code wire.Code) error {
	return s.emit(ss, req, code, ss.wbuf, true)
}

// emit MACs the response to req whose body is frame[HeaderSize:] (once a
// session key exists), fills its header into frame[:HeaderSize] and hands
// it to the batch writer: written now when flush is set, else queued. The
// body is zeroed afterwards: it may hold a plaintext.
func (s *Server) emit(ss *session, req *wire.Header, code wire.Code, frame []byte, flush bool) error {
	body := frame[wire.HeaderSize:]
	ss.wmu.Lock()
	h := &ss.hdr
	*h = wire.Header{Version: wire.ProtocolVersion, Flags: wire.FlagResponse, Op: req.Op, Code: code,
		RequestID: req.RequestID, Timestamp: s.opts.now().UnixMilli(), BodyLen: uint32(len(body))}
	if _, err := rand.Read(h.Nonce[:]); err != nil {
		ss.wmu.Unlock()
		clear(body)
		return err
	}
	if ss.smac != nil {
		ss.smac.Sign(h, body)
	}
	h.Put(frame[:wire.HeaderSize])
	ss.wmu.Unlock()
	var err error
	if flush {
		err = ss.bw.Send(frame)
	} else {
		err = ss.bw.Queue(frame)
	}
	clear(body)
	return err
}

func readReason(err error) string {
	switch {
	case errors.Is(err, io.EOF):
		return "peer closed"
	case errors.Is(err, os.ErrDeadlineExceeded):
		return "deadline (idle handshake or server closing)"
	case errors.Is(err, net.ErrClosed):
		return "server closing"
	default:
		return "read: " + err.Error()
	}
}
