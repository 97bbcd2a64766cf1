package handlers

import (
	"net/http"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"golang.org/x/text/unicode/norm"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/proxy/auditlog"
)

// MaxPathBytes bounds a secret path after percent-decoding.
const MaxPathBytes = 1024

// SecretPath validates the escaped path of a secret as the URL carried it
// (SPEC-DECISIONS "Paths and policies"): each segment is percent-decoded
// once; a decoded '/', an empty or '.' segment, ".." anywhere, a '\', ';',
// '?' or '#', a control or format character (bidi controls, zero-width
// characters, the BOM), invalid UTF-8, a string that is not NFC, or more
// than 1024 bytes is a 400 invalid_path. Nothing is silently cleaned up.
func SecretPath(escaped string) (string, error) {
	if escaped == "" {
		return "", invalidPath("the secret path is empty")
	}
	var b strings.Builder
	for i, seg := range strings.Split(escaped, "/") {
		dec, err := url.PathUnescape(seg)
		if err != nil {
			return "", invalidPath("the secret path has an invalid percent-encoding")
		}
		switch {
		case dec == "":
			return "", invalidPath("the secret path has an empty segment (leading, trailing or double '/')")
		case dec == ".":
			return "", invalidPath("the secret path has a '.' segment")
		case strings.Contains(dec, ".."):
			return "", invalidPath("the secret path contains '..'")
		case strings.ContainsAny(dec, `\;?#`):
			return "", invalidPath(`the secret path contains one of \ ; ? #`)
		case strings.Contains(dec, "/"):
			return "", invalidPath("a segment of the secret path contains an encoded '/'")
		}
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(dec)
		if b.Len() > MaxPathBytes {
			return "", invalidPath("the secret path is longer than 1024 bytes")
		}
	}
	p := b.String()
	if err := checkText(p); err != nil {
		return "", err
	}
	return p, nil
}

func checkText(p string) error {
	if !utf8.ValidString(p) {
		return invalidPath("the secret path is not valid UTF-8")
	}
	for _, r := range p {
		switch {
		case unicode.IsControl(r):
			return invalidPath("the secret path contains a control character")
		case unicode.Is(unicode.Cf, r):
			return invalidPath("the secret path contains an invisible format character (bidi control, zero-width character or BOM)")
		}
	}
	if !norm.NFC.IsNormalString(p) {
		return invalidPath("the secret path is not in Unicode NFC form")
	}
	return nil
}

func invalidPath(detail string) error {
	return problem.BadRequest(problem.TypeInvalidPath, detail)
}

// pathID reads a UUID path parameter; anything else is a 400.
func pathID(r *http.Request, name, what string) (string, error) {
	id, err := uuid.Parse(r.PathValue(name))
	if err != nil || len(r.PathValue(name)) != 36 {
		return "", problem.BadRequest(problem.TypeInvalidRequest, what+" id must be a UUID")
	}
	return id.String(), nil
}

// auditedID reads the UUID path parameter name (what names it in errors)
// and names the resource prefix+id in the request's audit entry, which it
// returns for the write that records it.
func auditedID(r *http.Request, name, what, prefix string) (string, *auditlog.Entry, error) {
	id, err := pathID(r, name, what)
	if err != nil {
		return "", nil, err
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetResource(prefix + id)
	return id, entry, nil
}
