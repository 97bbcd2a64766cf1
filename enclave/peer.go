package enclave

import (
	"crypto/ed25519"
	"errors"
	"time"

	"github.com/opencustody/ocv/enclave/wire"
)

// authenticatePeer reads the connection's first MAC'd frame, which must be
// the proxy's proof of identity (OpAttest with a wire.PeerProof over this
// session's transcript) signed with one of cfg.ProxyIdentityKeys. Anything
// else is answered Unauthenticated (BadRequest for a malformed proof) and
// the connection closes: no other operation is served before the proof.
// It returns "" once the peer is authenticated, else why the connection
// ends.
func (s *Server) authenticatePeer(ss *session) string {
	h, body, code, end := s.next(ss, maxHandshakeBody, " before the peer proof")
	if end != "" {
		return end
	}
	if code != wire.OK {
		return s.refusePeer(ss, &h, code, "peer proof frame rejected ("+code.String()+")", nil)
	}
	if h.Op != wire.OpAttest {
		return s.refusePeer(ss, &h, wire.Unauthenticated, "operation before the peer proof", nil)
	}
	var p wire.PeerProof
	if err := p.Decode(body); err != nil {
		return s.refusePeer(ss, &h, wire.BadRequest, "malformed peer proof", nil)
	}
	switch err := wire.VerifyPeerProof(s.cfg.ProxyIdentityKeys, &ss.transcript, &p); {
	case errors.Is(err, wire.ErrPeerUnknownKey):
		return s.refusePeer(ss, &h, wire.Unauthenticated, "unknown proxy identity key", &p.KeyID)
	case err != nil:
		return s.refusePeer(ss, &h, wire.Unauthenticated, "peer proof signature does not verify", &p.KeyID)
	}
	ss.wbuf = ss.wbuf[:wire.HeaderSize]
	if err := s.send(ss, &h, wire.OK); err != nil {
		return "write: " + err.Error()
	}
	s.setReadDeadline(ss.nc, time.Time{})
	s.log.Info("enclave peer authenticated", "conn", ss.id, "proxy_key_id", p.KeyID.String())
	return ""
}

// refusePeer logs why a peer is not served (the key id is public; nothing
// else of the frame is logged), answers code and ends the connection.
func (s *Server) refusePeer(ss *session, h *wire.Header, code wire.Code, why string, kid *wire.PeerKeyID) string {
	attrs := []any{"conn", ss.id, "op", h.Op.String(), "reason", why}
	if kid != nil {
		attrs = append(attrs, "proxy_key_id", kid.String())
	}
	s.log.Warn("enclave refused an unauthenticated peer", attrs...)
	s.reply(ss, h, code)
	return "peer not authenticated: " + why
}

// peerKeyIDs names the configured proxy identity keys, for the start log.
func peerKeyIDs(keys []ed25519.PublicKey) []string {
	ids := make([]string, len(keys))
	for i, k := range keys {
		ids[i] = wire.PeerKeyIDOf(k).String()
	}
	return ids
}
