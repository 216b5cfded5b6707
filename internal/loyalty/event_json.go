package loyalty

import "encoding/json"

// EventJSON is an event on the wire: in GET /events and as the body of
// every delivery (NATS, webhooks), so each carries the same thing.
type EventJSON struct {
	ID         string          `json:"id"`
	Sequence   int64           `json:"sequence"`
	Type       string          `json:"type"`
	BusinessID string          `json:"business_id"`
	CreatedAt  string          `json:"created_at"`
	Data       json.RawMessage `json:"data"`
}

// NewEventJSON is e on the wire.
func NewEventJSON(e Event) EventJSON {
	return EventJSON{ID: e.ID, Sequence: e.Seq, Type: e.Type, BusinessID: e.BusinessID, CreatedAt: FormatTime(e.CreatedAt), Data: e.Data}
}
