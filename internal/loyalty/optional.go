package loyalty

import (
	"bytes"
	"encoding/json"
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
	return json.Unmarshal(b, &o.V)
}

// Some returns a set Opt holding v.
func Some[T any](v T) Opt[T] { return Opt[T]{Set: true, V: v} }

// Value returns the value and whether one was sent (not absent, not null).
func (o Opt[T]) Value() (T, bool) { return o.V, o.Set && !o.Null }
