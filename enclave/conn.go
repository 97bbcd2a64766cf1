package enclave

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"os"
	"time"

	"github.com/opencustody/ocv/enclave/internal/ops"
	"github.com/opencustody/ocv/enclave/wire"
)

// maxHandshakeBody bounds the first frame, before anything is known about
// the peer.
const maxHandshakeBody = 1024

// opTimeout bounds the handshake's attestation and each response write.
const opTimeout = 30 * time.Second

// session is one connection's state. Not safe for concurrent use.
type session struct {
	id      uint64
	nc      net.Conn
	fr      *wire.FrameReader
	mac     *wire.MAC // nil until the handshake derived a key
	replay  *replayGuard
	hdr     wire.Header // response header, reused
	wbuf    []byte
	scratch ops.Scratch
	served  int
	// transcript is the handshake's, which the peer's proof must sign.
	transcript wire.PeerTranscript
}

// serveConn runs one connection: the handshake, then requests until the
// peer leaves, a frame fails authentication or the server closes.
func (s *Server) serveConn(nc net.Conn, id uint64) {
	ss := &session{id: id, nc: nc, fr: wire.NewFrameReader(bufio.NewReaderSize(nc, 32<<10)), wbuf: make([]byte, 0, 4096)}
	s.log.Info("enclave connection opened", "conn", id)
	reason := s.handshake(ss)
	if reason == "" {
		s.log.Info("enclave session attested", "conn", id)
		reason = s.authenticatePeer(ss)
	}
	if reason == "" {
		reason = s.loop(ss)
	}
	clear(ss.wbuf[:cap(ss.wbuf)])
	s.log.Info("enclave connection closed", "conn", id, "requests", ss.served, "reason", reason)
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
	ss.mac = wire.NewMAC(key)
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

// loop serves authenticated requests.
func (s *Server) loop(ss *session) string {
	for {
		h, body, code, end := s.next(ss, wire.MaxBodySize, "")
		if end != "" {
			return end
		}
		if code != wire.OK {
			s.log.Warn("enclave frame rejected", "conn", ss.id, "op", h.Op.String(), "code", code.String())
			s.reply(ss, &h, code)
			continue
		}
		// No per-request timer: the proxy bounds each call, and key-store
		// calls end when the shutdown grace is over (baseCtx).
		var err error
		ss.wbuf, err = s.handler.Handle(s.baseCtx, h.Op, body, ss.wbuf[:wire.HeaderSize], &ss.scratch)
		code = wire.CodeOf(err)
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
			ss.wbuf = ss.wbuf[:wire.HeaderSize]
		}
		ss.served++
		if err := s.send(ss, &h, code); err != nil {
			return "write: " + err.Error()
		}
	}
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

// send writes the response whose body is ss.wbuf[HeaderSize:]. It is
// MAC'd once a session key exists.
func (s *Server) send(ss *session, req *wire.Header, code wire.Code) error {
	h := &ss.hdr
	*h = wire.Header{Version: wire.ProtocolVersion, Flags: wire.FlagResponse, Op: req.Op, Code: code,
		RequestID: req.RequestID, Timestamp: s.opts.now().UnixMilli()}
	if _, err := rand.Read(h.Nonce[:]); err != nil {
		return err
	}
	body := ss.wbuf[wire.HeaderSize:]
	h.BodyLen = uint32(len(body))
	if ss.mac != nil {
		ss.mac.Sign(h, body)
	}
	h.Put(ss.wbuf[:wire.HeaderSize])
	_ = ss.nc.SetWriteDeadline(time.Now().Add(opTimeout))
	_, err := ss.nc.Write(ss.wbuf)
	if len(body) > 0 {
		clear(body)
	}
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
