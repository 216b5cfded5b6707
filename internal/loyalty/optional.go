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
	case *[]BasketItemInput:
		return plainItems(b, p)
	case json.Unmarshaler:
		// What json.Unmarshal would call, after checking b again.
		return b[0] != '"' && b[0] != '{' && b[0] != '[' && p.UnmarshalJSON(b) == nil
	}
	return false
}

// plainItems decodes a basket's lines (the one array every basket reward
// and dry run sends) when each is an object of the four fields, each
// named in lower case at most once with a plain value or null: what
// json.Unmarshal would decode to the same lines. Anything else (another
// key, an escape in a key, a nested value, a null line) is left to
// json.Unmarshal and its errors.
func plainItems(b []byte, out *[]BasketItemInput) bool {
	i := skipSpace(b, 0)
	if i == len(b) || b[i] != '[' {
		return false
	}
	items := make([]BasketItemInput, 0, 8)
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		*out = items
		return skipSpace(b, i+1) == len(b)
	}
	for {
		if i == len(b) || b[i] != '{' {
			return false
		}
		var it BasketItemInput
		var seen [4]bool
		i = skipSpace(b, i+1)
		for i < len(b) && b[i] != '}' {
			key, next := plainToken(b, i)
			if len(key) < 2 || key[0] != '"' {
				return false
			}
			if i = skipSpace(b, next); i == len(b) || b[i] != ':' {
				return false
			}
			val, next := plainToken(b, skipSpace(b, i+1))
			if len(val) == 0 {
				return false
			}
			ok := false
			switch string(key[1 : len(key)-1]) {
			case "sku":
				ok = !seen[0] && plainOpt(val, &it.SKU)
				seen[0] = true
			case "quantity":
				ok = !seen[1] && plainOpt(val, &it.Quantity)
				seen[1] = true
			case "price":
				ok = !seen[2] && plainOpt(val, &it.Price)
				seen[2] = true
			case "discount":
				ok = !seen[3] && plainOpt(val, &it.Discount)
				seen[3] = true
			}
			if !ok {
				return false
			}
			if i = skipSpace(b, next); i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
			}
		}
		if i == len(b) {
			return false
		}
		items = append(items, it)
		switch i = skipSpace(b, i+1); {
		case i < len(b) && b[i] == ',':
			i = skipSpace(b, i+1)
		case i < len(b) && b[i] == ']':
			*out = items
			return skipSpace(b, i+1) == len(b)
		default:
			return false
		}
	}
}

// plainOpt sets o from a scalar JSON value as Opt.UnmarshalJSON would,
// reporting false where that would need encoding/json.
func plainOpt[T any](val []byte, o *Opt[T]) bool {
	o.Set = true
	if string(val) == "null" {
		o.Null = true
		return true
	}
	return decodePlain(val, &o.V)
}

// plainToken is the string, number or literal that starts at b[i] (b is
// valid JSON), and the index after it; nil for an object or an array.
func plainToken(b []byte, i int) ([]byte, int) {
	if i >= len(b) || b[i] == '{' || b[i] == '[' {
		return nil, i
	}
	j := i + 1
	if b[i] == '"' {
		for j < len(b) && b[j] != '"' {
			if b[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(b) {
			return nil, i
		}
		return b[i : j+1], j + 1
	}
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && skipSpace(b, j) == j {
		j++
	}
	return b[i:j], j
}

// skipSpace is the index of the first byte from i that is not JSON's
// white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
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
