package client

import (
	"bufio"
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/mdlayher/vsock"

	"github.com/opencustody/ocv/attestation"
	"github.com/opencustody/ocv/enclave/wire"
)

// conn is one attested connection. Not safe for concurrent use: the pool
// hands it to one call at a time.
type conn struct {
	nc     net.Conn
	fr     *wire.FrameReader
	mac    *wire.MAC
	nextID uint64
	hdr    wire.Header
	wbuf   []byte
	gen    uint64
	used   int
	result attestation.Result
	// keepLast makes roundTrip keep a copy of the last request frame (the
	// Session test seam only).
	keepLast bool
	last     []byte
	// transcript is the handshake's, which the peer proof signs.
	transcript wire.PeerTranscript
}

// dial connects to addr.
func dial(ctx context.Context, addr wire.Addr) (net.Conn, error) {
	if addr.Network == wire.NetworkUnix {
		var d net.Dialer
		return d.DialContext(ctx, "unix", addr.Path)
	}
	return vsock.DialContext(ctx, addr.CID, addr.Port, nil)
}

// open dials and runs the handshake within timeout.
// id proves the proxy's identity; nil sends no proof (a test seam: the
// enclave then serves nothing on the connection).
func open(ctx context.Context, addr wire.Addr, v attestation.Validator, id *Identity, timeout time.Duration) (*conn, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	nc, err := dial(ctx, addr)
	if err != nil {
		return nil, &stageError{"dial", unwrapOpError(err)}
	}
	c, err := handshake(ctx, nc, v)
	if err == nil && id != nil {
		err = c.prove(ctx, id)
	}
	if err != nil {
		_ = nc.Close()
		return nil, err
	}
	return c, nil
}

// unwrapOpError drops net.OpError's address decoration, keeping the cause
// ("connection refused", "no such file or directory").
func unwrapOpError(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err
	}
	return err
}

// handshake sends the unMAC'd Attest, validates the document, derives the
// session key and checks that the answer was MAC'd with it.
func handshake(ctx context.Context, nc net.Conn, v attestation.Validator) (*conn, error) {
	if dl, ok := ctx.Deadline(); ok {
		_ = nc.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	priv, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		return nil, &stageError{"handshake", err}
	}
	nonce := make([]byte, 32)
	_, _ = rand.Read(nonce)
	proxyPub := priv.PublicKey().Bytes()
	c := &conn{nc: nc, fr: wire.NewFrameReader(bufio.NewReaderSize(nc, 32<<10)), wbuf: make([]byte, 0, 4096)}
	c.hdr = wire.Header{Version: wire.ProtocolVersion, Op: wire.OpAttest, Timestamp: time.Now().UnixMilli()}
	_, _ = rand.Read(c.hdr.Nonce[:])
	body, err := (&wire.AttestRequest{Nonce: nonce, ProxyPublicKey: proxyPub}).Append(nil)
	if err != nil {
		return nil, &stageError{"handshake", err}
	}
	if c.wbuf, err = wire.AppendFrame(c.wbuf[:0], &c.hdr, body); err != nil {
		return nil, &stageError{"handshake", err}
	}
	if _, err := nc.Write(c.wbuf); err != nil {
		return nil, &stageError{"handshake", unwrapOpError(err)}
	}
	h, rbody, err := c.fr.Next(wire.MaxDocumentLen + 64)
	if err != nil {
		return nil, &stageError{"handshake", unwrapOpError(err)}
	}
	if !h.IsResponse() || h.Op != wire.OpAttest || h.RequestID != 0 {
		return nil, &stageError{"handshake", errProtocol}
	}
	if h.Code != wire.OK {
		return nil, &stageError{"handshake", fmt.Errorf("enclave refused: %s", h.Code)}
	}
	var resp wire.AttestResponse
	if err := resp.Decode(rbody); err != nil {
		return nil, &stageError{"handshake", err}
	}
	res, err := v.Validate(ctx, resp.Document, nonce)
	if err != nil {
		return nil, &stageError{"attestation", err}
	}
	enclavePub, err := wire.ParseX25519PublicKey(res.PublicKey)
	if err != nil {
		return nil, &stageError{"attestation", fmt.Errorf("document binds no channel key: %w", err)}
	}
	key, err := wire.DeriveSessionKey(priv, enclavePub, nonce, proxyPub, res.PublicKey)
	if err != nil {
		return nil, &stageError{"handshake", err}
	}
	c.mac = wire.NewMAC(key)
	clear(key[:])
	// Only the enclave holding the attested key's private half can MAC this.
	if !c.mac.Verify(&h, rbody) {
		return nil, &stageError{"handshake", fmt.Errorf("%w: answer not MAC'd with the attested channel key", errProtocol)}
	}
	if c.transcript, err = wire.NewPeerTranscript(nonce, proxyPub, res.PublicKey, resp.Document); err != nil {
		return nil, &stageError{"handshake", err}
	}
	c.result = res
	_ = nc.SetDeadline(time.Time{})
	return c, nil
}

// prove sends the peer proof, the connection's first MAC'd frame: id's
// signature over the handshake transcript. The enclave answers OK, or
// Unauthenticated and hangs up.
func (c *conn) prove(ctx context.Context, id *Identity) error {
	p, err := id.Sign(&c.transcript)
	if err != nil {
		return &stageError{"peer proof", err}
	}
	c.wbuf = c.wbuf[:wire.HeaderSize]
	c.wbuf, _ = p.Append(c.wbuf)
	c.seal(wire.OpAttest, time.Now())
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(DefaultDialTimeout)
	}
	code, _, err := c.exchange(ctx, deadline, c.wbuf, wire.OpAttest, c.hdr.RequestID)
	_ = c.nc.SetDeadline(time.Time{})
	if err != nil {
		return &stageError{"peer proof", err}
	}
	if code != wire.OK {
		return &stageError{"peer proof", fmt.Errorf("%w: enclave refused the proxy identity %s", wire.Err(code), id.KeyID())}
	}
	return nil
}

// roundTrip sends one request and reads its answer into resp. A non-OK
// code comes back as its wire sentinel and leaves the connection usable
// (except Unauthenticated, after which the enclave hangs up); an error
// wrapped in *brokenError means the connection must be dropped. resp's byte
// fields alias the connection's buffer until the next roundTrip.
func (c *conn) roundTrip(ctx context.Context, deadline time.Time, op wire.Op, req, resp wire.Message) (err error) {
	c.wbuf = c.wbuf[:wire.HeaderSize]
	if c.wbuf, err = req.Append(c.wbuf); err != nil {
		return err // never sent: the connection is fine
	}
	c.used++
	c.seal(op, time.Now())
	code, body, err := c.exchange(ctx, deadline, c.wbuf, op, c.hdr.RequestID)
	clear(c.wbuf[wire.HeaderSize:]) // the request may hold a plaintext
	if err != nil {
		return err
	}
	if code != wire.OK {
		if code == wire.Unauthenticated {
			return &brokenError{wire.Err(code)}
		}
		return wire.Err(code)
	}
	if err := resp.Decode(body); err != nil {
		return &brokenError{fmt.Errorf("%w: %w", errProtocol, err)}
	}
	return nil
}

// seal fills c.hdr for the body in c.wbuf[HeaderSize:] (next request id, a
// fresh nonce, timestamp at, the MAC) and writes it in place.
func (c *conn) seal(op wire.Op, at time.Time) {
	c.nextID++
	c.hdr = wire.Header{Version: wire.ProtocolVersion, Op: op, RequestID: c.nextID, Timestamp: at.UnixMilli()}
	_, _ = rand.Read(c.hdr.Nonce[:])
	body := c.wbuf[wire.HeaderSize:]
	c.hdr.BodyLen = uint32(len(body))
	c.mac.Sign(&c.hdr, body)
	c.hdr.Put(c.wbuf[:wire.HeaderSize])
}

// exchange writes frame and reads the enclave's answer to request (op, id),
// checking that it is a response to exactly that request and MAC'd with the
// session key.
func (c *conn) exchange(ctx context.Context, deadline time.Time, frame []byte, op wire.Op, id uint64) (wire.Code, []byte, error) {
	_ = c.nc.SetDeadline(deadline)
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, func() { _ = c.nc.SetDeadline(time.Unix(1, 0)) })
		defer stop()
	}
	if c.keepLast {
		c.last = append(c.last[:0], frame...)
	}
	if _, err := c.nc.Write(frame); err != nil {
		return 0, nil, &brokenError{unwrapOpError(err)}
	}
	h, body, err := c.fr.Next(wire.MaxBodySize)
	if err != nil {
		return 0, nil, &brokenError{unwrapOpError(err)}
	}
	if !h.IsResponse() || h.Op != op || h.RequestID != id {
		return 0, nil, &brokenError{fmt.Errorf("%w: answer to another request", errProtocol)}
	}
	if !c.mac.Verify(&h, body) {
		return 0, nil, &brokenError{fmt.Errorf("%w: bad response MAC", errProtocol)}
	}
	return h.Code, body, nil
}

func (c *conn) close() { _ = c.nc.Close() }
