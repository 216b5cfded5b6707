package loyalty

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// Opt is a JSON field of an update body that records whether it was sent
// and whether it was null, so that "absent" and "cleared" differ.
type Opt[T any] struct {
	Set  bool // the field was present in the body
	Null bool // the field was present as null
	V    T
}

// UnmarshalJSON records presence and decodes the value.
func (o *Opt[T]) UnmarshalJSON(b []byte) error {
	o.Set = true
	if bytes.Equal(b, []byte("null")) {
		o.Null = true
		return nil
	}
	if decodePlain(b, &o.V) {
		return nil
	}
	return json.Unmarshal(b, &o.V)
}

// decodePlain decodes, without encoding/json, the values every body is
// mostly made of (a plain string, a whole number, a boolean, a type that
// decodes itself), when b (valid JSON: the caller's decoder checked it)
// is one that json.Unmarshal would decode into v without an error and to
// the same value. It reports false for anything else, left to
// json.Unmarshal and its errors. Each json.Unmarshal checks its whole
// input again before decoding it, so a body of optional fields nested in
// arrays was read several times over.
func decodePlain(b []byte, v any) bool {
	switch p := v.(type) {
	case *string:
		if len(b) < 2 || b[0] != '"' || !utf8.Valid(b) {
			return false
		}
		for _, c := range b[1 : len(b)-1] {
			if c == '\\' || c < 0x20 {
				return false
			}
		}
		*p = string(b[1 : len(b)-1])
		return true
	case *int64:
		return plainInt(b, p)
	case *int:
		var n int64
		if !plainInt(b, &n) || int64(int(n)) != n {
			return false
		}
		*p = int(n)
		return true
	case *bool:
		switch string(b) {
		case "true":
			*p = true
		case "false":
			*p = false
		default:
			return false
		}
		return true
	case json.Unmarshaler:
		// What json.Unmarshal would call, after checking b again.
		return b[0] != '"' && b[0] != '{' && b[0] != '[' && p.UnmarshalJSON(b) == nil
	}
	return false
}

// plainInt parses b when it is a whole number in int64's range.
func plainInt(b []byte, n *int64) bool {
	for i, c := range b {
		if (c < '0' || c > '9') && !(i == 0 && c == '-') {
			return false
		}
	}
	x, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return false
	}
	*n = x
	return true
}

// Some returns a set Opt holding v.
func Some[T any](v T) Opt[T] { return Opt[T]{Set: true, V: v} }

// Value returns the value and whether one was sent (not absent, not null).
func (o Opt[T]) Value() (T, bool) { return o.V, o.Set && !o.Null }
