package egress

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

func mustAllow(t *testing.T, entries ...string) Allowlist {
	t.Helper()
	l, err := ParseAllowlist(entries)
	require.NoError(t, err)
	return l
}

func TestCheckURL(t *testing.T) {
	strict := New(Config{})
	loop := New(Config{AllowLoopback: true})
	listed := New(Config{Allow: mustAllow(t, "rpc.example.com:8545", "10.1.0.0/16:8545", "[fd12::/64]:8545", "192.168.5.5:25",
		"169.254.169.254/32:80", "[64:ff9b::/96]:443")})
	tests := map[string]struct {
		p       *Policy
		url     string
		wantErr error
	}{
		"ok https name":         {p: strict, url: "https://rpc.example.com/v2/key"},
		"ok http name":          {p: strict, url: "http://rpc.example.com/"},
		"ok wss name":           {p: strict, url: "wss://rpc.example.com/"},
		"ok explicit 443":       {p: strict, url: "https://rpc.example.com:443/"},
		"ok public v4":          {p: strict, url: "https://93.184.216.34/"},
		"ok public v6":          {p: strict, url: "https://[2606:4700:4700::1111]/"},
		"ok mapped public":      {p: strict, url: "https://[::ffff:93.184.216.34]/"},
		"ok nat64 public":       {p: strict, url: "https://[64:ff9b::5db8:d822]/"},
		"ok listed name port":   {p: listed, url: "https://rpc.example.com:8545/"},
		"ok listed cidr":        {p: listed, url: "http://10.1.2.3:8545/"},
		"ok listed v6 cidr":     {p: listed, url: "http://[fd12::5]:8545/"},
		"ok listed address":     {p: listed, url: "http://192.168.5.5:25/"},
		"ok loopback in tests":  {p: loop, url: "http://127.0.0.1:8545/"},
		"ok ::1 in tests":       {p: loop, url: "http://[::1]:9000/"},
		"ok mapped in tests":    {p: loop, url: "http://[::ffff:127.0.0.1]:9000/"},
		"ok localhost in tests": {p: loop, url: "http://localhost:9000/"},

		"fail scheme":            {p: strict, url: "ftp://rpc.example.com/", wantErr: ErrUnsupportedScheme},
		"fail userinfo":          {p: strict, url: "https://u:p@rpc.example.com/", wantErr: ErrUserinfo},
		"fail empty host":        {p: strict, url: "https:///x", wantErr: ErrEmptyHost},
		"fail port 8545":         {p: strict, url: "https://rpc.example.com:8545/", wantErr: ErrPortNotAllowed},
		"fail port 22":           {p: strict, url: "https://93.184.216.34:22/", wantErr: ErrPortNotAllowed},
		"fail listed other port": {p: listed, url: "https://rpc.example.com:8546/", wantErr: ErrPortNotAllowed},
		"fail listed other name": {p: listed, url: "https://other.example.com:8545/", wantErr: ErrPortNotAllowed},
		"fail cidr other port":   {p: listed, url: "http://10.1.2.3:80/", wantErr: ErrForbiddenAddress},
		"fail outside cidr":      {p: listed, url: "http://10.2.0.1:8545/", wantErr: ErrForbiddenAddress},
		"fail listed metadata":   {p: listed, url: "http://169.254.169.254/", wantErr: ErrForbiddenAddress},
		"fail listed nat64 meta": {p: listed, url: "https://[64:ff9b::a9fe:a9fe]/", wantErr: ErrForbiddenAddress},
		"ok listed nat64 cidr":   {p: listed, url: "https://[64:ff9b::a00:1]/"},
		"fail loopback":          {p: strict, url: "http://127.0.0.1/", wantErr: ErrForbiddenAddress},
		"fail loopback port":     {p: strict, url: "http://127.0.0.1:8545/", wantErr: ErrForbiddenAddress},
		"fail ::1":               {p: strict, url: "http://[::1]/", wantErr: ErrForbiddenAddress},
		"fail mapped loopback":   {p: strict, url: "http://[::ffff:127.0.0.1]/", wantErr: ErrForbiddenAddress},
		"fail mapped hex":        {p: strict, url: "http://[::ffff:7f00:1]/", wantErr: ErrForbiddenAddress},
		"fail localhost":         {p: strict, url: "http://localhost/", wantErr: ErrForbiddenHost},
		"fail decimal loopback":  {p: strict, url: "http://2130706433/", wantErr: ErrForbiddenAddress},
		"fail octal loopback":    {p: strict, url: "http://0177.0.0.1/", wantErr: ErrForbiddenAddress},
		"fail rfc1918 10":        {p: strict, url: "https://10.0.0.1/", wantErr: ErrForbiddenAddress},
		"fail rfc1918 172":       {p: strict, url: "https://172.16.0.1/", wantErr: ErrForbiddenAddress},
		"fail rfc1918 192":       {p: strict, url: "https://192.168.0.1/", wantErr: ErrForbiddenAddress},
		"fail ula":               {p: strict, url: "https://[fd00::1]/", wantErr: ErrForbiddenAddress},
		"fail link-local":        {p: strict, url: "https://169.254.1.1/", wantErr: ErrForbiddenAddress},
		"fail v6 link-local":     {p: strict, url: "https://[fe80::1]/", wantErr: ErrForbiddenAddress},
		"fail cgnat":             {p: strict, url: "https://100.64.0.1/", wantErr: ErrForbiddenAddress},
		"fail multicast":         {p: strict, url: "https://224.0.0.1/", wantErr: ErrForbiddenAddress},
		"fail v6 multicast":      {p: strict, url: "https://[ff02::1]/", wantErr: ErrForbiddenAddress},
		"fail unspecified":       {p: strict, url: "https://0.0.0.0/", wantErr: ErrForbiddenAddress},
		"fail v6 unspecified":    {p: strict, url: "https://[::]/", wantErr: ErrForbiddenAddress},
		"fail broadcast":         {p: strict, url: "https://255.255.255.255/", wantErr: ErrForbiddenAddress},
		"fail documentation":     {p: strict, url: "https://192.0.2.1/", wantErr: ErrForbiddenAddress},
		"fail v6 documentation":  {p: strict, url: "https://[2001:db8::1]/", wantErr: ErrForbiddenAddress},
		"fail aws metadata":      {p: strict, url: "http://169.254.169.254/latest/", wantErr: ErrForbiddenAddress},
		"fail aws v6 metadata":   {p: strict, url: "http://[fd00:ec2::254]/", wantErr: ErrForbiddenAddress},
		"fail alibaba metadata":  {p: strict, url: "http://100.100.100.200/", wantErr: ErrForbiddenAddress},
		"fail gcp metadata name": {p: strict, url: "http://metadata.google.internal/", wantErr: ErrForbiddenHost},
		"fail nat64 loopback":    {p: strict, url: "http://[64:ff9b::7f00:1]/", wantErr: ErrForbiddenAddress},
		"fail 6to4 private":      {p: strict, url: "http://[2002:c0a8:101::1]/", wantErr: ErrForbiddenAddress},
		"fail teredo":            {p: strict, url: "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", wantErr: ErrForbiddenAddress},
		"fail metadata in tests": {p: loop, url: "http://169.254.169.254/", wantErr: ErrForbiddenAddress},
		"fail private in tests":  {p: loop, url: "http://10.0.0.1/", wantErr: ErrForbiddenAddress},
		"fail nat64 in tests":    {p: loop, url: "http://[64:ff9b::7f00:1]/", wantErr: ErrForbiddenAddress},
		"fail 0.0.0.0 in tests":  {p: loop, url: "http://0.0.0.0:8080/", wantErr: ErrForbiddenAddress},
		"fail internal zone":     {p: strict, url: "https://db.corp.internal/", wantErr: ErrForbiddenHost},
		"fail single label":      {p: strict, url: "https://intranet/", wantErr: ErrForbiddenHost},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := tc.p.CheckURL(tc.url)
			if tc.wantErr == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.wantErr)
			require.ErrorIs(t, err, ErrRefused)
			require.NotEmpty(t, Describe(err))
		})
	}
}

func TestParseAllowlist(t *testing.T) {
	l, err := ParseAllowlist([]string{" smtp.example.com:587 ", "", "10.0.0.0/8:8545", "[::1]:25", "RPC.Example.com.:8545"})
	require.NoError(t, err)
	require.Equal(t, 4, l.Len())
	for _, bad := range []string{"smtp.example.com", "host:0", "host:65536", "host:x", "10.0.0.0/33:80", ":80", "10.0.0.0/8"} {
		_, err := ParseAllowlist([]string{bad})
		require.Error(t, err, bad)
	}
}

func TestCheckHostPort(t *testing.T) {
	p := New(Config{})
	require.ErrorIs(t, p.CheckHostPort("smtp.example.com:587"), ErrPortNotAllowed)
	sp, err := p.WithHostPort("smtp.example.com:587")
	require.NoError(t, err)
	require.NoError(t, sp.CheckHostPort("smtp.example.com:587"))
	// The configured host's port is admitted, its address still judged.
	lp, err := p.WithHostPort("127.0.0.1:25")
	require.NoError(t, err)
	require.ErrorIs(t, lp.CheckHostPort("127.0.0.1:25"), ErrForbiddenAddress)
	// An operator's CIDR entry admits its own relay.
	op := New(Config{Allow: mustAllow(t, "127.0.0.1/32:25")})
	require.NoError(t, op.CheckHostPort("127.0.0.1:25"))
	require.ErrorIs(t, p.CheckHostPort("nohostport"), ErrInvalidURL)
}

// fakeResolver answers from a fixed table, like a DNS server an attacker
// controls.
type fakeResolver map[string][]netip.Addr

func (r fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := r[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func TestDialRefusesAtConnectTime(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)
	port := u.Port()
	r := fakeResolver{
		"rebind.example.com": {netip.MustParseAddr("127.0.0.1")},
		"mapped.example.com": {netip.MustParseAddr("::ffff:127.0.0.1")},
		"mixed.example.com":  {netip.MustParseAddr("10.0.0.5"), netip.MustParseAddr("127.0.0.1")},
		"meta.example.com":   {netip.MustParseAddr("169.254.169.254")},
	}
	// The allowlist admits the test server's port for every name, so that
	// only the resolved address decides.
	var entries []string
	for name := range r {
		entries = append(entries, net.JoinHostPort(name, port))
	}
	allow := mustAllow(t, entries...)
	tests := map[string]struct {
		cfg     Config
		host    string
		wantErr error
	}{
		"fail rebinding":          {cfg: Config{Allow: allow, Resolver: r}, host: "rebind.example.com", wantErr: ErrForbiddenAddress},
		"fail mapped answer":      {cfg: Config{Allow: allow, Resolver: r}, host: "mapped.example.com", wantErr: ErrForbiddenAddress},
		"fail mixed answer":       {cfg: Config{Allow: allow, Resolver: r}, host: "mixed.example.com", wantErr: ErrForbiddenAddress},
		"fail metadata answer":    {cfg: Config{Allow: allow, Resolver: r, AllowLoopback: true}, host: "meta.example.com", wantErr: ErrForbiddenAddress},
		"fail literal":            {cfg: Config{}, host: "127.0.0.1", wantErr: ErrForbiddenAddress},
		"fail localhost":          {cfg: Config{}, host: "localhost", wantErr: ErrForbiddenHost},
		"fail port not allowed":   {cfg: Config{Resolver: fakeResolver{"pub.example.com": {netip.MustParseAddr("93.184.216.34")}}}, host: "pub.example.com", wantErr: ErrPortNotAllowed},
		"ok loopback in tests":    {cfg: Config{AllowLoopback: true}, host: "127.0.0.1"},
		"ok rebinding in tests":   {cfg: Config{Resolver: r, AllowLoopback: true}, host: "rebind.example.com"},
		"ok mixed in tests":       {cfg: Config{Resolver: r, AllowLoopback: true}, host: "mixed.example.com"},
		"ok operator cidr":        {cfg: Config{Allow: mustAllow(t, "127.0.0.0/8:"+port)}, host: "127.0.0.1"},
		"ok operator cidr + name": {cfg: Config{Allow: mustAllow(t, "127.0.0.0/8:"+port), Resolver: r}, host: "rebind.example.com"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			before := hits.Load()
			c := New(tc.cfg).Client(0)
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+net.JoinHostPort(tc.host, port)+"/", nil)
			require.NoError(t, err)
			resp, err := c.Do(req)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				require.ErrorIs(t, err, ErrRefused)
				require.Equal(t, before, hits.Load(), "the server was reached")
				return
			}
			require.NoError(t, err)
			require.NoError(t, resp.Body.Close())
			require.Equal(t, http.StatusNoContent, resp.StatusCode)
		})
	}
}

func TestControlRefusesOtherPeers(t *testing.T) {
	ctl := New(Config{}).control(443, false)
	require.ErrorIs(t, ctl("tcp4", "127.0.0.1:443", nil), ErrForbiddenAddress)
	require.ErrorIs(t, ctl("tcp4", "93.184.216.34:8080", nil), ErrPortNotAllowed)
	require.ErrorIs(t, ctl("udp4", "93.184.216.34:443", nil), ErrForbiddenAddress)
	require.NoError(t, ctl("tcp4", "93.184.216.34:443", nil))
	require.NoError(t, ctl("tcp6", "[2606:4700:4700::1111]:443", nil))
}

func TestClientIgnoresEnvironmentProxy(t *testing.T) {
	c := New(Config{}).Client(0)
	tr, ok := c.Transport.(*http.Transport)
	require.True(t, ok)
	require.Nil(t, tr.Proxy)
}

func TestIsLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{"localhost": true, "api.localhost": true, "127.0.0.1": true, "::1": true,
		"::ffff:127.0.0.1": true, "2130706433": true, "example.com": false, "10.0.0.1": false, "0.0.0.0": false} {
		require.Equal(t, want, IsLoopbackHost(host), host)
	}
}
