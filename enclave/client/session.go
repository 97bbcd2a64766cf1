package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/opencustody/ocv/attestation"
	"github.com/opencustody/ocv/enclave/wire"
)

// Session is one attested connection outside any pool, with access to the
// raw frames.
//
// It is for tests and audits only: it lets a test prove that the enclave
// refuses a replayed, stale or tampered frame (LastRequestFrame, Frame,
// SendRawFrame). The proxy uses Client. A Session is not safe for
// concurrent use.
//
// # Experimental
type Session struct {
	cn *conn
}

// SessionOption adjusts DialSession.
type SessionOption func(*sessionOptions)

type sessionOptions struct{ id *Identity }

// WithIdentity makes the session prove id in the handshake, as the proxy
// does. Without it the session sends no proof: its first MAC'd frame is
// whatever the caller sends first (the enclave refuses anything but a
// valid proof, and hangs up).
func WithIdentity(id *Identity) SessionOption {
	return func(o *sessionOptions) { o.id = id }
}

// DialSession dials addr, runs the handshake, validates the enclave's
// document with v and, WithIdentity, proves the proxy's identity.
func DialSession(ctx context.Context, addr string, v attestation.Validator, opts ...SessionOption) (*Session, error) {
	var o sessionOptions
	for _, opt := range opts {
		opt(&o)
	}
	a, err := wire.ParseAddr(addr)
	if err != nil {
		return nil, fmt.Errorf("%w: addr: %w", ErrInvalidConfig, err)
	}
	if v == nil {
		return nil, fmt.Errorf("%w: validator is required", ErrInvalidConfig)
	}
	cn, err := open(ctx, a, v, o.id, DefaultDialTimeout)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", wire.ErrUnavailable, err)
	}
	cn.keepLast = true
	return &Session{cn: cn}, nil
}

// Result is what the session's attestation document proved.
func (s *Session) Result() attestation.Result { return s.cn.result }

// Transcript is the session's handshake transcript, which a peer proof
// signs (for tests that craft their own proofs).
func (s *Session) Transcript() wire.PeerTranscript { return s.cn.transcript }

// Call sends body as a request of op and returns the answer's code and a
// copy of its body. err is set only when the connection broke.
func (s *Session) Call(op wire.Op, body []byte) (wire.Code, []byte, error) {
	frame, err := s.Frame(op, body, time.Now())
	if err != nil {
		return 0, nil, err
	}
	return s.send(frame, op, s.cn.hdr.RequestID)
}

// LastRequestFrame returns a copy of the last frame sent, byte for byte
// (the MAC included), ready to be replayed with SendRawFrame.
func (s *Session) LastRequestFrame() []byte { return bytes.Clone(s.cn.last) }

// Frame builds a correctly MAC'd request frame (the next request id, a
// fresh nonce) with the timestamp at, without sending it.
func (s *Session) Frame(op wire.Op, body []byte, at time.Time) ([]byte, error) {
	if len(body) > wire.MaxBodySize {
		return nil, fmt.Errorf("%w: frame too large", wire.ErrBadRequest)
	}
	s.cn.wbuf = append(s.cn.wbuf[:wire.HeaderSize], body...)
	s.cn.seal(op, at)
	return bytes.Clone(s.cn.wbuf), nil
}

// SendRawFrame writes frame as it is and returns the code of the enclave's
// answer, after checking the answer's MAC. err is set when the frame does
// not parse or the connection broke (the enclave closes it after a frame
// that fails authentication, once it has answered Unauthenticated).
func (s *Session) SendRawFrame(frame []byte) (wire.Code, error) {
	h, _, err := wire.DecodeFrame(frame)
	if err != nil {
		return 0, err
	}
	code, _, err := s.send(frame, h.Op, h.RequestID)
	return code, err
}

func (s *Session) send(frame []byte, op wire.Op, id uint64) (wire.Code, []byte, error) {
	code, body, err := s.cn.exchange(context.Background(), time.Now().Add(DefaultCallTimeout), frame, op, id)
	if err != nil {
		var broken *brokenError
		if errors.As(err, &broken) {
			return 0, nil, fmt.Errorf("%w: %w", wire.ErrUnavailable, err)
		}
		return 0, nil, err
	}
	return code, bytes.Clone(body), nil
}

// Close closes the connection.
func (s *Session) Close() error { return s.cn.nc.Close() }
