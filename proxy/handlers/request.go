package handlers

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/strictjson"
)

// MaxJSONDepth bounds the nesting of request bodies.
const MaxJSONDepth = 64

// decodeJSON reads a JSON body into v: an object, no unknown fields, no
// trailing data, nesting at most MaxJSONDepth, and nothing parsers read
// differently (duplicate keys, invalid UTF-8, lone surrogates: see
// internal/strictjson). The body size is bounded by
// the server's limit middleware (413 past it).
func decodeJSON(r *http.Request, v any) error {
	body, err := readJSONBody(r)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return problem.BadRequest(problem.TypeInvalidRequest, "malformed JSON: "+describeJSONError(err))
	}
	if dec.More() {
		return problem.BadRequest(problem.TypeInvalidRequest, "malformed JSON: trailing data after the object")
	}
	return nil
}

// readJSONBody reads a JSON request body with decodeJSON's checks of
// content type, size and nesting, and returns it undecoded.
func readJSONBody(r *http.Request) ([]byte, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && mt != "application/problem+json") {
			return nil, problem.New(http.StatusUnsupportedMediaType, problem.TypeUnsupportedMedia, "the body must be application/json")
		}
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, problem.New(http.StatusRequestEntityTooLarge, problem.TypeTooLarge,
				fmt.Sprintf("the body is larger than %d bytes", mbe.Limit))
		}
		return nil, problem.BadRequest(problem.TypeInvalidRequest, "the body could not be read")
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, problem.BadRequest(problem.TypeInvalidRequest, "a JSON body is required")
	}
	if err := strictjson.Check(body, MaxJSONDepth); err != nil {
		return nil, problem.BadRequest(problem.TypeInvalidRequest, "malformed JSON: "+err.Error())
	}
	return body, nil
}

// describeJSONError says what is wrong without echoing submitted values.
func describeJSONError(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return "syntax error at byte " + strconv.FormatInt(se.Offset, 10)
	case errors.As(err, &te):
		if te.Field != "" {
			return "field " + strconv.Quote(te.Field) + " must be " + te.Type.String()
		}
		return "the body must be a JSON object"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "unexpected end of input"
	default:
		msg := err.Error()
		// encoding/json names unknown fields as `json: unknown field "x"`.
		if len(msg) < 200 {
			return msg
		}
		return "invalid body"
	}
}

// pageParams reads `limit` (default 50, 1..500) and `cursor`.
func pageParams(r *http.Request) (limit int, cursor string, err error) {
	q := r.URL.Query()
	limit = 50
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 500 {
			return 0, "", problem.BadRequest(problem.TypeInvalidRequest, "limit must be an integer from 1 to 500")
		}
		limit = n
	}
	if c := q.Get("cursor"); c != "" {
		raw, err := base64.RawURLEncoding.DecodeString(c)
		if err != nil || len(raw) > 2048 {
			return 0, "", problem.BadRequest(problem.TypeInvalidRequest, "cursor is not valid")
		}
		cursor = string(raw)
	}
	return limit, cursor, nil
}

func encodeCursor(s string) *string {
	c := base64.RawURLEncoding.EncodeToString([]byte(s))
	return &c
}
