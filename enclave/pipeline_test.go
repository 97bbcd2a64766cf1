package enclave_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/client"
	"github.com/opencustody/ocv/enclave/wire"
)

// TestPipelinedFrames: frames written back to back in one write are each
// checked in arrival order exactly as when sent one by one (MAC,
// freshness, replay, increasing ids), and every frame that passes is
// answered, a long operation's answer possibly overtaking short ones.
func TestPipelinedFrames(t *testing.T) {
	health := func(t *testing.T, s *client.Session) []byte {
		f, err := s.Frame(wire.OpHealth, encode(t, &wire.HealthRequest{}), time.Now())
		require.NoError(t, err)
		return f
	}
	tests := map[string]struct {
		frames    func(t *testing.T, e *env, s *client.Session) [][]byte
		want      []wire.Code // by position in the pipeline
		wantAlive bool
	}{
		"ok short and long operations": {
			frames: func(t *testing.T, e *env, s *client.Session) [][]byte {
				kek, err := s.Frame(wire.OpCreateKEK, encode(t, &wire.CreateKEKRequest{Token: kekOwnerToken(t, e.ks, "org"), OrgID: "org", VaultID: "v"}), time.Now())
				require.NoError(t, err)
				return [][]byte{health(t, s), kek, health(t, s), health(t, s)}
			},
			want:      []wire.Code{wire.OK, wire.OK, wire.OK, wire.OK},
			wantAlive: true,
		},
		"fail frame replayed within the pipeline": {
			frames: func(t *testing.T, e *env, s *client.Session) [][]byte {
				f := health(t, s)
				return [][]byte{f, health(t, s), f}
			},
			want:      []wire.Code{wire.OK, wire.OK, wire.Replay},
			wantAlive: true,
		},
		"fail ids out of order": {
			frames: func(t *testing.T, e *env, s *client.Session) [][]byte {
				first, second := health(t, s), health(t, s)
				return [][]byte{second, first}
			},
			want:      []wire.Code{wire.OK, wire.Replay},
			wantAlive: true,
		},
		"fail tampered frame ends the connection": {
			frames: func(t *testing.T, e *env, s *client.Session) [][]byte {
				bad := health(t, s)
				bad[50] ^= 1 // in the MAC
				return [][]byte{health(t, s), bad, health(t, s)}
			},
			want: []wire.Code{wire.OK, wire.Unauthenticated},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			s := e.session(t)
			frames := tc.frames(t, e, s)
			ids := make([]uint64, len(frames))
			for i, f := range frames {
				h, _, err := wire.DecodeFrame(f)
				require.NoError(t, err)
				ids[i] = h.RequestID
			}
			answers, err := s.Pipeline(frames)
			if tc.wantAlive {
				require.NoError(t, err)
			} else {
				require.Error(t, err, "the enclave hangs up after a frame that fails authentication")
			}
			require.Len(t, answers, len(tc.want))
			// Answers come back in any order; match each to its frame.
			// A replayed frame shares its id with an earlier one: match
			// in order.
			used := make([]bool, len(frames))
			got := make([]wire.Code, len(tc.want))
			for _, a := range answers {
				for i := range tc.want {
					if !used[i] && ids[i] == a.RequestID && (a.Code == tc.want[i]) {
						used[i], got[i] = true, a.Code
						break
					}
				}
			}
			require.Equal(t, tc.want, got)
			if tc.wantAlive {
				code, _, err := s.Call(wire.OpHealth, encode(t, &wire.HealthRequest{}))
				require.NoError(t, err)
				require.Equal(t, wire.OK, code)
			}
		})
	}
}
