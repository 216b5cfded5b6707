package loyalty

import "time"

// The resources as the API shows them. The API's replies and the events'
// data (Event.Data) are built from the same views, so an event carries
// exactly what a client reading the resource would see.

// BalanceJSON is a customer's balance on the wire.
type BalanceJSON struct {
	Points   int64 `json:"points"`
	Giftcard Money `json:"giftcard"`
}

// Nullable writes an empty string as JSON null.
func Nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// OptTime writes a time in the API's form, or null when it is unset.
func OptTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := FormatTime(t)
	return &s
}
