package loyalty

import "time"

// The resources as the API shows them. The API's replies and the events'
// data (Event.Data) are built from the same views, so an event carries
// exactly what a client reading the resource would see.

// BalanceJSON is a customer's balance on the wire: points are the active,
// usable ones. Where the balance was read whole (not on a transaction's
// reply) it also says what expires next and what expired.
type BalanceJSON struct {
	Points   int64 `json:"points"`
	Giftcard Money `json:"giftcard"`
	Pending  int64 `json:"pending_points"`
	*BalanceLifeJSON
}

// BalanceLifeJSON is the part of BalanceJSON read with the customer's lots.
type BalanceLifeJSON struct {
	Expiring   int64   `json:"expiring_points"`
	ExpiringAt *string `json:"expiring_at"`
	Expired    int64   `json:"expired_points"`
}

// NewBalanceJSON writes a balance read whole.
func NewBalanceJSON(b Balance) *BalanceJSON {
	life := &BalanceLifeJSON{Expiring: b.Expiring, Expired: b.Expired}
	if !b.ExpiringAt.IsZero() {
		at := FormatTime(b.ExpiringAt)
		life.ExpiringAt = &at
	}
	return &BalanceJSON{Points: b.Points, Giftcard: b.Giftcard, Pending: b.Pending, BalanceLifeJSON: life}
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
