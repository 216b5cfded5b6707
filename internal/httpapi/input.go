package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
)

// maxBody bounds a JSON request body.
const maxBody = 1 << 20

// decodeBody reads a JSON body into v. A body that is not JSON, or not
// UTF-8 (RFC 8259 section 8.1), is a bad request; a field of the wrong
// type, or a string holding a NUL character, is a 422 naming the field.
// Every JSON body of both APIs comes through here, so no text reaches the
// services that the decoder altered or that one database would refuse
// (PostgreSQL, SQLSTATE 22021) and the other keep (SQLite).
func decodeBody(r *http.Request, v any) error { return decodeBodyUpTo(r, v, maxBody) }

// decodeBodyUpTo is decodeBody for a body of up to limit bytes.
func decodeBodyUpTo(r *http.Request, v any, limit int64) error {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, limit))
	var me *http.MaxBytesError
	switch {
	case errors.As(err, &me):
		return loyalty.Errorf(loyalty.EBadRequest, "The body is too large.")
	case err != nil:
		return loyalty.Errorf(loyalty.EBadRequest, "The body could not be read.")
	}
	return decodeJSON(body, v)
}

// decodeStrict is decodeBody for the calls that have no field of the
// reference platform to tolerate: a key v does not have is a 422 naming
// it, not ignored. An empty body is an empty object.
func decodeStrict(r *http.Request, v any) error {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBody))
	if err != nil {
		return loyalty.Errorf(loyalty.EBadRequest, "The body could not be read or is too large.")
	}
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	if err := decodeJSON(body, v); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil && strings.HasPrefix(err.Error(), "json: unknown field ") {
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return loyalty.Invalid(name, "This call has no field "+name+".")
	}
	return nil
}

// decodeJSON is decodeBody's reading of a body already read.
func decodeJSON(body []byte, v any) error {
	if err := jsonTextError(body); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	err := dec.Decode(v)
	if err == nil && dec.More() {
		return loyalty.Errorf(loyalty.EBadRequest, "The body must hold one JSON object and nothing after it.")
	}
	var te *json.UnmarshalTypeError
	var le *loyalty.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &le):
		// A type that decodes itself said what is wrong, naming the field.
		return le
	case errors.As(err, &te):
		field := wireField(te.Field)
		if field == "" {
			return loyalty.Errorf(loyalty.EBadRequest, "The body must be a JSON object.")
		}
		if te.Type == reflect.TypeFor[loyalty.Money]() {
			return loyalty.Invalid(field, "The "+field+" field must be a number with at most 2 decimals.")
		}
		return loyalty.Invalid(field, "The "+field+" field must be of type "+jsonType(te.Type.Kind().String())+".")
	default:
		return loyalty.Errorf(loyalty.EBadRequest, "The body is not valid JSON.")
	}
}

// wireField is a decoding error's field path as the body names it:
// encoding/json puts the Go name of an embedded struct on the path
// ("EarningInput.reward_ratio"), which no body has (the API's names are
// lower case).
func wireField(path string) string {
	parts := strings.Split(path, ".")
	kept := parts[:0]
	for _, p := range parts {
		if p != "" && !unicode.IsUpper(rune(p[0])) {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, ".")
}

func jsonType(kind string) string {
	switch kind {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "int", "int64", "int32", "float64", "uint":
		return "number"
	case "slice":
		return "array"
	default:
		return "object"
	}
}

// notUTF8 is the message of a body that is not UTF-8.
const notUTF8 = "The body is not valid UTF-8 (RFC 8259 section 8.1)."

// jsonTextError checks the text of a JSON body before it is decoded:
// encoding/json would silently replace bytes that are not UTF-8, and half
// of a \u surrogate pair, with U+FFFD; a \u0000 escape decodes to a NUL
// character. It names the member holding the first NUL or lone surrogate
// as the client wrote it: a dotted path, array elements by index
// ("tier_levels.1.name"). A body that is not JSON passes, for the decoder
// to refuse.
func jsonTextError(body []byte) error {
	if !utf8.Valid(body) {
		return loyalty.Errorf(loyalty.EBadRequest, notUTF8)
	}
	if !bytes.Contains(body, []byte(`\u`)) {
		return nil
	}
	// frame is an open object or array: the member being read, or the
	// index of the element.
	type frame struct {
		object  bool
		wantKey bool
		key     string
		index   int
	}
	var stack []frame
	path := func(key string, isKey bool) string {
		parts := make([]string, 0, len(stack)+1)
		for i, f := range stack {
			switch {
			case !f.object:
				parts = append(parts, strconv.Itoa(f.index))
			case i < len(stack)-1 || !isKey:
				parts = append(parts, f.key)
			}
		}
		if isKey {
			parts = append(parts, key)
		}
		return strings.Join(parts, ".")
	}
	begin := func() { // a value starts in the open frame
		if n := len(stack); n > 0 && !stack[n-1].object {
			stack[n-1].index++
		}
	}
	end := func() { // a value ended in the open frame
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	prev := dec.InputOffset()
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the end, or not JSON: the decoder says which
		}
		raw := body[prev:dec.InputOffset()]
		prev = dec.InputOffset()
		switch tok := tok.(type) {
		case json.Delim:
			if tok == '{' || tok == '[' {
				begin()
				stack = append(stack, frame{object: tok == '{', wantKey: tok == '{', index: -1})
				continue
			}
			stack = stack[:len(stack)-1]
			end()
		case string:
			isKey := len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].wantKey
			if !isKey {
				begin()
			}
			nul, lone := badEscapes(raw)
			name := path(tok, isKey)
			switch {
			case lone:
				return loyalty.Errorf(loyalty.EBadRequest, "The body is not valid UTF-8 (RFC 8259 section 8.2): %s holds half of a \\u surrogate pair.", orBody(name))
			case nul && name != "":
				return loyalty.Invalid(name, "The "+name+" field may not contain NUL characters (\\u0000).")
			}
			if isKey {
				stack[len(stack)-1].key, stack[len(stack)-1].wantKey = tok, false
			} else {
				end()
			}
		default:
			begin()
			end()
		}
	}
}

// orBody is name, or "the body" for the top-level value.
func orBody(name string) string {
	if name == "" {
		return "the body"
	}
	return name
}

// badEscapes reports whether the raw JSON text of a string holds a \u0000
// escape, or a \u escape of a surrogate that is not half of a pair.
func badEscapes(raw []byte) (nul, lone bool) {
	hex := func(i int) (rune, bool) {
		if i+6 > len(raw) || raw[i] != '\\' || raw[i+1] != 'u' {
			return 0, false
		}
		n, err := strconv.ParseUint(string(raw[i+2:i+6]), 16, 16)
		return rune(n), err == nil
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		r, ok := hex(i)
		if !ok {
			i++ // a one-character escape such as \\ or \"
			continue
		}
		i += 5
		switch {
		case r == 0:
			nul = true
		case r >= 0xD800 && r < 0xDC00:
			if lo, ok := hex(i + 1); ok && lo >= 0xDC00 && lo < 0xE000 {
				i += 6
			} else {
				lone = true
			}
		case r >= 0xDC00 && r < 0xE000:
			lone = true
		}
	}
	return nul, lone
}

// requestTextError checks the text of a request outside its body: the
// path, every query parameter and the Application Key, which are read
// before sign-in.
func requestTextError(r *http.Request) error {
	if err := loyalty.CheckText("path", r.URL.Path); err != nil {
		return err
	}
	if err := loyalty.CheckValues("query parameter", r.URL.Query()); err != nil {
		return err
	}
	return loyalty.CheckText("X-Application-Key header", r.Header.Get("X-Application-Key"))
}

// tokenTextError checks the text of a token request: the request outside
// its body, every form field, and the client credentials of HTTP Basic.
func tokenTextError(r *http.Request, req oauth.TokenRequest) error {
	if err := requestTextError(r); err != nil {
		return err
	}
	if err := loyalty.CheckValues("form field", r.PostForm); err != nil {
		return err
	}
	if err := loyalty.CheckText("client_id", req.ClientID); err != nil {
		return err
	}
	return loyalty.CheckText("client_secret", req.ClientSecret)
}
