package webhooks

import (
	"testing"

	"github.com/opencustody/ocv/internal/egress"

	"github.com/stretchr/testify/require"
)

func TestValidateURL(t *testing.T) {
	loop := Options{AllowLoopback: true}
	allow, err := egress.ParseAllowlist([]string{"hooks.example.com:8443"})
	require.NoError(t, err)
	listed := Options{Allow: allow}
	tests := map[string]struct {
		url     string
		opts    Options
		wantErr error
	}{
		"ok https name":             {url: "https://hooks.example.com/ocv?token=abc"},
		"ok https port 443":         {url: "https://hooks.example.com:443/x"},
		"ok https on port 80":       {url: "https://hooks.example.com:80/x"},
		"ok allowlisted port":       {url: "https://hooks.example.com:8443/x", opts: listed},
		"ok public ipv4":            {url: "https://93.184.216.34/"},
		"ok public ipv6":            {url: "https://[2606:4700:4700::1111]/"},
		"ok uppercase scheme":       {url: "HTTPS://hooks.example.com/"},
		"ok trailing dot":           {url: "https://hooks.example.com./"},
		"ok punycode name":          {url: "https://xn--bcher-kva.example/"},
		"ok nat64 of public v4":     {url: "https://[64:ff9b::5db8:d822]/"},
		"ok mapped public v4":       {url: "https://[::ffff:93.184.216.34]/"},
		"ok 6to4 of public v4":      {url: "https://[2002:5db8:d822::1]/"},
		"ok loopback when allowed":  {url: "http://127.0.0.1:8080/", opts: loop},
		"ok ::1 when allowed":       {url: "http://[::1]:8080/", opts: loop},
		"ok localhost when allowed": {url: "http://localhost:8080/", opts: loop},

		"fail scheme ftp":                        {url: "ftp://hooks.example.com/", wantErr: ErrUnsupportedScheme},
		"fail scheme file":                       {url: "file:///etc/passwd", wantErr: ErrUnsupportedScheme},
		"fail scheme gopher":                     {url: "gopher://hooks.example.com:70/_x", wantErr: ErrUnsupportedScheme},
		"fail no scheme":                         {url: "//hooks.example.com/", wantErr: ErrUnsupportedScheme},
		"fail opaque":                            {url: "http:hooks.example.com", wantErr: ErrInvalidURL},
		"fail plain http":                        {url: "http://hooks.example.com/x", wantErr: ErrUnsupportedScheme},
		"fail other port":                        {url: "https://hooks.example.com:8080/x", wantErr: ErrPortNotAllowed},
		"fail port 22":                           {url: "https://hooks.example.com:22/", wantErr: ErrPortNotAllowed},
		"fail port of other host":                {url: "https://other.example.com:8443/x", opts: listed, wantErr: ErrPortNotAllowed},
		"fail http public when loopback allowed": {url: "http://hooks.example.com/x", opts: loop, wantErr: ErrUnsupportedScheme},
		"fail unparsable":                        {url: "http://[::1/", wantErr: ErrInvalidURL},
		"fail port zero":                         {url: "http://hooks.example.com:0/", wantErr: ErrInvalidURL},
		"fail port too large":                    {url: "http://hooks.example.com:65536/", wantErr: ErrInvalidURL},
		"fail userinfo":                          {url: "https://user:pw@hooks.example.com/", wantErr: ErrUserinfo},
		// The visible "trusted" name is userinfo; the real host is private.
		"fail userinfo disguise": {url: "http://hooks.example.com@10.0.0.1/", wantErr: ErrUserinfo},
		// Browsers read the backslash as a slash and see a different host
		// than a parser that takes "...\" as userinfo; Go refuses it.
		"fail backslash userinfo": {url: `http://hooks.example.com\@127.0.0.1/`, wantErr: ErrInvalidURL},
		"fail empty host":         {url: "http:///path", wantErr: ErrEmptyHost},
		"fail empty host port":    {url: "http://:8080/", wantErr: ErrEmptyHost},

		"fail localhost":              {url: "http://localhost/", wantErr: ErrForbiddenHost},
		"fail localhost uppercase":    {url: "http://LOCALHOST/", wantErr: ErrForbiddenHost},
		"fail localhost trailing dot": {url: "http://localhost./", wantErr: ErrForbiddenHost},
		"fail sub.localhost":          {url: "http://api.localhost/", wantErr: ErrForbiddenHost},
		"fail .internal":              {url: "http://db.corp.internal/", wantErr: ErrForbiddenHost},
		"fail .local":                 {url: "http://printer.local/", wantErr: ErrForbiddenHost},
		"fail .home.arpa":             {url: "http://nas.home.arpa/", wantErr: ErrForbiddenHost},
		"fail gcp metadata name":      {url: "http://metadata.google.internal/computeMetadata/v1/", wantErr: ErrForbiddenHost},
		"fail metadata single label":  {url: "http://metadata/", wantErr: ErrForbiddenHost},
		"fail aws instance-data":      {url: "http://instance-data.ec2.internal/", wantErr: ErrForbiddenHost},
		// Resolved through the search domains: something on the local net.
		"fail single label": {url: "http://intranet/", wantErr: ErrForbiddenHost},
		// .internal stays refused even with the test switch.
		"fail .internal when loopback allowed": {url: "http://x.internal/", opts: loop, wantErr: ErrForbiddenHost},
		// Fullwidth letters map to "localhost" under IDNA; only punycode is accepted.
		"fail fullwidth localhost": {url: "http://ｌｏｃａｌｈｏｓｔ/", wantErr: ErrInvalidHost},
		"fail fullwidth digits":    {url: "http://１２７.０.０.１/", wantErr: ErrInvalidHost},
		"fail double trailing dot": {url: "http://hooks.example.com../", wantErr: ErrInvalidHost},
		"fail empty label":         {url: "http://hooks..example.com/", wantErr: ErrInvalidHost},
		// Five numeric parts: browsers refuse it; so do we, rather than guess.
		"fail five parts":    {url: "http://1.2.3.4.5/", wantErr: ErrInvalidHost},
		"fail numeric tld":   {url: "http://example.123/", wantErr: ErrInvalidHost},
		"fail bad octal":     {url: "http://0189.0.0.1/", wantErr: ErrInvalidHost},
		"fail v4 part > 255": {url: "http://256.0.0.1/", wantErr: ErrInvalidHost},
		"fail bad ipv6":      {url: "http://[1:2:3]/", wantErr: ErrInvalidURL},

		"fail loopback":         {url: "http://127.0.0.1/", wantErr: ErrForbiddenAddress},
		"fail loopback 127/8":   {url: "http://127.45.6.7/", wantErr: ErrForbiddenAddress},
		"fail private 10":       {url: "http://10.1.2.3/", wantErr: ErrForbiddenAddress},
		"fail private 172.16":   {url: "http://172.16.0.1/", wantErr: ErrForbiddenAddress},
		"fail private 172.31":   {url: "http://172.31.255.255/", wantErr: ErrForbiddenAddress},
		"fail private 192.168":  {url: "http://192.168.1.1/", wantErr: ErrForbiddenAddress},
		"fail link-local":       {url: "http://169.254.1.1/", wantErr: ErrForbiddenAddress},
		"fail aws metadata":     {url: "http://169.254.169.254/latest/meta-data/", wantErr: ErrForbiddenAddress},
		"fail alibaba metadata": {url: "http://100.100.100.200/", wantErr: ErrForbiddenAddress},
		"fail cgnat":            {url: "http://100.64.0.1/", wantErr: ErrForbiddenAddress},
		"fail cgnat top":        {url: "http://100.127.255.254/", wantErr: ErrForbiddenAddress},
		"fail multicast v4":     {url: "http://224.0.0.1/", wantErr: ErrForbiddenAddress},
		"fail broadcast":        {url: "http://255.255.255.255/", wantErr: ErrForbiddenAddress},
		"fail reserved 240":     {url: "http://240.0.0.1/", wantErr: ErrForbiddenAddress},
		"fail benchmarking":     {url: "http://198.18.0.1/", wantErr: ErrForbiddenAddress},
		// Linux connects 0.0.0.0 to the local host.
		"fail unspecified v4":   {url: "http://0.0.0.0/", wantErr: ErrForbiddenAddress},
		"fail 0.0.0.0 allowed?": {url: "http://0.0.0.0:8080/", opts: loop, wantErr: ErrForbiddenAddress},
		"fail this network":     {url: "http://0.1.2.3/", wantErr: ErrForbiddenAddress},

		// Legacy IPv4 spellings that inet_aton and browsers read as 127.0.0.1.
		"fail decimal dword":     {url: "http://2130706433/", wantErr: ErrForbiddenAddress},
		"fail octal dotted":      {url: "http://0177.0.0.1/", wantErr: ErrForbiddenAddress},
		"fail hex short":         {url: "http://0x7f.1/", wantErr: ErrForbiddenAddress},
		"fail hex dword":         {url: "http://0x7f000001/", wantErr: ErrForbiddenAddress},
		"fail hex uppercase X":   {url: "http://0X7F.0.0.1/", wantErr: ErrForbiddenAddress},
		"fail short 127.1":       {url: "http://127.1/", wantErr: ErrForbiddenAddress},
		"fail short 3 parts":     {url: "http://127.0.1/", wantErr: ErrForbiddenAddress},
		"fail octal dword":       {url: "http://017700000001/", wantErr: ErrForbiddenAddress},
		"fail mixed octal hex":   {url: "http://0x7f.0.0.01/", wantErr: ErrForbiddenAddress},
		"fail leading zeros 10":  {url: "http://012.0.0.1/", wantErr: ErrForbiddenAddress},  // octal 012 = 10
		"fail decimal metadata":  {url: "http://2852039166/", wantErr: ErrForbiddenAddress}, // 169.254.169.254
		"fail trailing dot ipv4": {url: "http://127.0.0.1./", wantErr: ErrForbiddenAddress},
		// Browsers unescape the host to 127.0.0.1; Go's parser refuses it.
		"fail percent-encoded host": {url: "http://127.0.0.%31/", wantErr: ErrInvalidURL},

		"fail ipv6 loopback":      {url: "http://[::1]/", wantErr: ErrForbiddenAddress},
		"fail ipv6 loopback long": {url: "http://[0:0:0:0:0:0:0:1]/", wantErr: ErrForbiddenAddress},
		"fail ipv6 unspecified":   {url: "http://[::]/", wantErr: ErrForbiddenAddress},
		"fail ipv6 link-local":    {url: "http://[fe80::1]/", wantErr: ErrForbiddenAddress},
		"fail ipv6 zone":          {url: "http://[fe80::1%25eth0]/", wantErr: ErrForbiddenAddress},
		"fail ipv6 unique-local":  {url: "http://[fd12:3456::1]/", wantErr: ErrForbiddenAddress},
		"fail ipv6 ula fc00":      {url: "http://[fc00::1]/", wantErr: ErrForbiddenAddress},
		"fail aws v6 metadata":    {url: "http://[fd00:ec2::254]/", wantErr: ErrForbiddenAddress},
		"fail ipv6 multicast":     {url: "http://[ff02::1]/", wantErr: ErrForbiddenAddress},
		"fail ipv6 site-local":    {url: "http://[fec0::1]/", wantErr: ErrForbiddenAddress},
		"fail ipv6 documentation": {url: "http://[2001:db8::1]/", wantErr: ErrForbiddenAddress},
		"fail ipv6 teredo":        {url: "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", wantErr: ErrForbiddenAddress},
		"fail ipv6 not global":    {url: "http://[4000::1]/", wantErr: ErrForbiddenAddress},
		// IPv4-mapped: the kernel connects to the IPv4 address itself.
		"fail mapped loopback":     {url: "http://[::ffff:127.0.0.1]/", wantErr: ErrForbiddenAddress},
		"fail mapped loopback hex": {url: "http://[::ffff:7f00:1]/", wantErr: ErrForbiddenAddress},
		"fail mapped private":      {url: "http://[::ffff:10.0.0.1]/", wantErr: ErrForbiddenAddress},
		"fail mapped metadata":     {url: "http://[::ffff:169.254.169.254]/", wantErr: ErrForbiddenAddress},
		"fail mapped unspecified":  {url: "http://[::ffff:0.0.0.0]/", wantErr: ErrForbiddenAddress},
		// IPv4-compatible (deprecated): never a legitimate destination.
		"fail compatible loopback": {url: "http://[::127.0.0.1]/", wantErr: ErrForbiddenAddress},
		"fail compatible private":  {url: "http://[::10.0.0.1]/", wantErr: ErrForbiddenAddress},
		"fail compatible public":   {url: "http://[::93.184.216.34]/", wantErr: ErrForbiddenAddress},
		// SIIT translated form ::ffff:0:a.b.c.d.
		"fail siit private": {url: "http://[::ffff:0:10.0.0.1]/", wantErr: ErrForbiddenAddress},
		// NAT64 gateways translate to the embedded IPv4 address.
		"fail nat64 loopback":  {url: "http://[64:ff9b::127.0.0.1]/", wantErr: ErrForbiddenAddress},
		"fail nat64 private":   {url: "http://[64:ff9b::a00:1]/", wantErr: ErrForbiddenAddress},
		"fail nat64 metadata":  {url: "http://[64:ff9b::a9fe:a9fe]/", wantErr: ErrForbiddenAddress},
		"fail nat64 local-use": {url: "http://[64:ff9b:1::1]/", wantErr: ErrForbiddenAddress},
		// Loopback through translation stays refused even with the test switch.
		"fail nat64 loopback allowed": {url: "http://[64:ff9b::7f00:1]/", opts: loop, wantErr: ErrForbiddenAddress},
		"fail 6to4 private":           {url: "http://[2002:c0a8:101::1]/", wantErr: ErrForbiddenAddress},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := ValidateURL(tc.url, tc.opts)
			if tc.wantErr == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.wantErr)
			require.ErrorIs(t, err, ErrRefusedDestination)
		})
	}
}

func TestValidateURLErrorsNeverCarryPathQueryOrCredentials(t *testing.T) {
	for _, raw := range []string{
		"http://user:canary-pw@hooks.example.com/p",
		"http://10.0.0.1/canary-path?canary=token",
		"ftp://hooks.example.com/canary-path",
		"http://[::1/canary-path",
	} {
		err := ValidateURL(raw, Options{})
		require.Error(t, err)
		require.NotContains(t, err.Error(), "canary", "the error repeats part of the URL beyond the host")
	}
}
