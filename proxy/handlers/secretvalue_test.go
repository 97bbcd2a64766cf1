package handlers

import (
	"encoding/base64"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/api/problem"
)

func TestSecretValueBytes(t *testing.T) {
	enc := func(s string) *string { return &s }
	binary := []byte{0x00, 0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80, '\n'}
	tests := map[string]struct {
		value    string
		encoding *string
		want     []byte
		wantErr  bool
	}{
		"text by default":        {value: "héllo", want: []byte("héllo")},
		"text named":             {value: "x", encoding: enc("utf8"), want: []byte("x")},
		"base64 bytes as-is":     {value: base64.StdEncoding.EncodeToString(binary), encoding: enc("base64"), want: binary},
		"empty base64":           {value: "", encoding: enc("base64"), want: []byte{}},
		"fail not base64":        {value: "not base64!", encoding: enc("base64"), wantErr: true},
		"fail unpadded":          {value: "AAE", encoding: enc("base64"), wantErr: true},
		"fail url alphabet":      {value: "-_-_", encoding: enc("base64"), wantErr: true},
		"fail line break inside": {value: "AAAA\nAAAA", encoding: enc("base64"), wantErr: true},
		"fail trailing bits":     {value: "AAF=", encoding: enc("base64"), wantErr: true},
		"fail unknown encoding":  {value: "x", encoding: enc("hex"), wantErr: true},
		"fail empty encoding":    {value: "x", encoding: enc(""), wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := secretValueBytes(tc.value, tc.encoding)
			if tc.wantErr {
				var p *problem.Problem
				require.ErrorAs(t, err, &p)
				require.Equal(t, http.StatusBadRequest, p.Status)
				require.Equal(t, problem.TypeInvalidRequest, p.Type)
				require.Contains(t, p.Detail, "encoding")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestEncodeSecretValue(t *testing.T) {
	tests := map[string]struct {
		plain     []byte
		force     bool
		wantValue string
		wantEnc   string
	}{
		"text":            {plain: []byte("hunter2"), wantValue: "hunter2", wantEnc: "utf8"},
		"text with NUL":   {plain: []byte("a\x00b"), wantValue: "a\x00b", wantEnc: "utf8"},
		"invalid utf-8":   {plain: []byte{0xff, 0x00}, wantValue: "/wA=", wantEnc: "base64"},
		"lone surrogate":  {plain: []byte{0xed, 0xa0, 0x80}, wantValue: "7aCA", wantEnc: "base64"},
		"text forced b64": {plain: []byte("hi"), force: true, wantValue: "aGk=", wantEnc: "base64"},
		"empty":           {plain: nil, wantValue: "", wantEnc: "utf8"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			v, enc := encodeSecretValue(tc.plain, tc.force)
			require.Equal(t, tc.wantValue, v)
			require.Equal(t, tc.wantEnc, enc)
		})
	}
}

func TestWantBase64(t *testing.T) {
	for q, want := range map[string]bool{"": false, "auto": false, "base64": true} {
		got, err := wantBase64(q)
		require.NoError(t, err)
		require.Equal(t, want, got, q)
	}
	_, err := wantBase64("utf8")
	require.Error(t, err)
}
