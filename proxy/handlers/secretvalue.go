package handlers

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"

	"github.com/opencustody/ocv/api/problem"
)

// Encodings of a secret's value in the API (documented in api/openapi.yaml
// and the README). A write says how its value is encoded; the bytes it
// stands for are sealed as they are. A read answers the stored bytes as
// text when they are valid UTF-8 and in base64 otherwise (or always in
// base64 when asked), and says which: no byte is ever altered.
const (
	EncodingUTF8   = "utf8"
	EncodingBase64 = "base64"
)

// maxEncodedValue is the longest value field a write may carry: the
// base64 form of MaxValueBytes bytes. The decoded bytes are held to
// MaxValueBytes either way.
const maxEncodedValue = 4 * ((MaxValueBytes + 2) / 3)

// secretValueBytes returns the bytes a write's value stands for: the text
// itself (encoding absent or "utf8"), or the decoded standard, padded
// base64 (encoding "base64"). Anything else, and base64 that does not
// decode, is 400 invalid_request naming the field.
func secretValueBytes(value string, encoding *string) ([]byte, error) {
	enc := EncodingUTF8
	if encoding != nil {
		enc = *encoding
	}
	switch enc {
	case EncodingUTF8:
		return []byte(value), nil
	case EncodingBase64:
		// The decoder skips CR and LF; the API does not.
		b, err := base64.StdEncoding.Strict().DecodeString(value)
		if err != nil || strings.ContainsAny(value, "\r\n") {
			return nil, problem.BadRequest(problem.TypeInvalidRequest,
				"value must be standard padded base64 (RFC 4648 section 4) when encoding is base64")
		}
		return b, nil
	default:
		return nil, problem.BadRequest(problem.TypeInvalidRequest, `encoding must be "utf8" or "base64"`)
	}
}

// encodeSecretValue is the value field and encoding of stored bytes in an
// answer: the text when plain is valid UTF-8 and base64 is not asked for,
// else standard padded base64.
func encodeSecretValue(plain []byte, forceBase64 bool) (value, encoding string) {
	if !forceBase64 && utf8.Valid(plain) {
		return string(plain), EncodingUTF8
	}
	return base64.StdEncoding.EncodeToString(plain), EncodingBase64
}

// wantBase64 reads the `encoding` query parameter of a read: "base64"
// asks for the value in base64 whatever it holds; absent or "auto" is the
// default; anything else is 400.
func wantBase64(q string) (bool, error) {
	switch q {
	case "", "auto":
		return false, nil
	case EncodingBase64:
		return true, nil
	default:
		return false, problem.BadRequest(problem.TypeInvalidRequest, `the encoding parameter must be "auto" or "base64"`)
	}
}
