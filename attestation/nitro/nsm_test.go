package nitro

import (
	"errors"
	"testing"

	"github.com/hf/nsm"
	"github.com/hf/nsm/request"
	"github.com/hf/nsm/response"
	"github.com/stretchr/testify/require"
)

// fakeNSM stands in for the device at the Send level: hf/nsm's ioctl seam
// would need unsafe pointer juggling in the test.
type fakeNSM struct {
	res    response.Response
	err    error
	got    *request.Attestation
	closed bool
}

func (f *fakeNSM) Send(req request.Request) (response.Response, error) {
	f.got, _ = req.(*request.Attestation)
	return f.res, f.err
}

func (f *fakeNSM) Close() error {
	f.closed = true
	return nil
}

func TestNSMIssuerIssue(t *testing.T) {
	doc := []byte("document")
	tests := map[string]struct {
		fake    *fakeNSM
		wantErr error
	}{
		"ok":              {fake: &fakeNSM{res: response.Response{Attestation: &response.Attestation{Document: doc}}}},
		"fail NSM error":  {fake: &fakeNSM{res: response.Response{Error: response.ECInputTooLarge}}, wantErr: ErrNSM},
		"fail ioctl":      {fake: &fakeNSM{err: errors.New("ioctl failed")}, wantErr: ErrNSM},
		"fail empty":      {fake: &fakeNSM{res: response.Response{Attestation: &response.Attestation{}}}, wantErr: ErrNSM},
		"fail no payload": {fake: &fakeNSM{}, wantErr: ErrNSM},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			iss := &NSMIssuer{sess: tc.fake}
			got, err := iss.Issue(t.Context(), []byte("pub"), []byte("nonce"))
			require.ErrorIs(t, err, tc.wantErr)
			require.Equal(t, []byte("pub"), tc.fake.got.PublicKey)
			require.Equal(t, []byte("nonce"), tc.fake.got.Nonce)
			if tc.wantErr == nil {
				require.Equal(t, doc, got)
			}
		})
	}
}

func TestNSMIssuerClose(t *testing.T) {
	fake := &fakeNSM{}
	iss := &NSMIssuer{sess: fake}
	require.NoError(t, iss.Close())
	require.True(t, fake.closed)
	require.NoError(t, iss.Close())
	_, err := iss.Issue(t.Context(), nil, []byte("n"))
	require.ErrorIs(t, err, ErrNSM)
}

func TestNewNSMIssuerNoDevice(t *testing.T) {
	opts := nsm.Options{Open: func() (nsm.FileDescriptor, error) { return nil, errors.New("no /dev/nsm") }}
	_, err := newNSMIssuerWithOptions(opts)
	require.ErrorIs(t, err, ErrNSM)
}
