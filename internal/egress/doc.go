// Package egress is OCV's one outbound connection policy. Every connection
// the proxy opens to a destination it did not choose itself (webhook
// receivers, chain RPC nodes, the x402 facilitator, the SMTP relay, the S3
// bucket of audit heads) goes through a Policy:
//
//   - Addresses: only public unicast. Loopback, private (RFC 1918, ULA),
//     link-local, carrier-grade NAT, multicast, unspecified, broadcast,
//     documentation, benchmarking and other special-purpose ranges are
//     refused, in every spelling: IPv4-mapped and IPv4-compatible IPv6,
//     NAT64, SIIT and 6to4 forms judged by the IPv4 address they carry,
//     Teredo refused outright, and the legacy IPv4 forms inet_aton and
//     browsers accept ("2130706433", "0177.0.0.1", "127.1"). Cloud metadata
//     addresses (169.254.169.254, fd00:ec2::254, 100.100.100.200,
//     192.0.0.192) are refused always, whatever the allowlist says.
//   - Names: localhost, special-use and private-use zones (.local,
//     .internal, .home.arpa, ...), cloud metadata names and single-label
//     names are refused before any lookup.
//   - Ports: 443 and 80 only.
//   - Operator allowlist (OCV_EGRESS_ALLOW): "host:port" entries admit
//     another port for that host name (its addresses must still be public);
//     "CIDR:port" entries admit addresses in the CIDR on that port even when
//     they are private or loopback (an RPC node or relay on the operator's
//     own network). Metadata addresses stay refused.
//
// The checks run twice: CheckURL and CheckHostPort judge configuration
// (an admin's URL when it is set), and DialContext judges the addresses a
// name resolves to at connect time, every one of them, and re-checks the
// exact peer address in the socket's Control hook before connect(2), so a
// name that passed when it was set and resolves elsewhere later (DNS
// rebinding) is still refused. Clients from Client and Transport never use
// HTTP(S)_PROXY from the environment: the check must judge the real peer.
//
// Config.AllowLoopback is TEST ONLY (end-to-end tests run their RPC nodes,
// receivers, S3 and SMTP servers on 127.0.0.1); the proxy honours it only in
// binaries built with -tags ocvtest (internal/testbuild).
package egress
