package loyalty

import (
	"strings"
	"time"
)

// A member gives points to someone: to another member of the business at
// once (the sender's entry 58 and the receiver's 59, one transaction), or
// to someone who is not a member yet, whose points wait held (taken from
// the sender, given to no one) until they join the business, the sender
// recalls them, or TransferHold passes; then they come back to the
// sender by an entry reversing the sender's (the lots it spent get their
// points back).

// TransferHold is how long points sent to someone not yet a member wait.
const TransferHold = 30 * 24 * time.Hour

// States of a transfer.
const (
	TransferPending   = "pending"   // held for someone who is not a member yet
	TransferCompleted = "completed" // the receiver has the points
	TransferRecalled  = "recalled"  // the sender took them back
	TransferReturned  = "returned"  // nobody joined in time: back to the sender
)

// Transfer is points one member sent to someone.
type Transfer struct {
	ID         string
	BusinessID string
	SenderID   string
	ReceiverID string // "" while pending
	ToEmail    string // the contact it was sent to (normalised)
	ToPhone    string
	Points     int64
	Message    string
	State      string
	SentEntry  int64 // the sender's entry
	// SettledEntry is the entry that ended it: the receiver's, or the one
	// that gave the points back to the sender.
	SettledEntry int64
	CreatedAt    time.Time
	ExpiresAt    time.Time // when held points go back, for a pending one
	SettledAt    time.Time
}

// TransferInput is the body of POST /users/{id}/transfers.
type TransferInput struct {
	BusinessID Opt[string]      `json:"business_id"`
	Points     Opt[int64]       `json:"points"`
	To         Opt[CustomerRef] `json:"to"`
	Message    Opt[string]      `json:"message"`
}

// check validates a transfer's input: the points, the message and the
// receiver's contact (normalised with the business's country).
func (in TransferInput) check(b Business) (points int64, message string, to User, err error) {
	v := Validation{}
	points, ok := in.Points.Value()
	if !ok || points <= 0 || points > maxPoints {
		v.Add("points", "The points must be a whole number greater than 0.")
	}
	if m, ok := in.Message.Value(); ok {
		message = strings.TrimSpace(m)
		if len([]rune(message)) > 280 {
			v.Add("message", "The message may be at most 280 characters.")
		}
	}
	ref, ok := in.To.Value()
	switch {
	case !ok:
		v.Add("to", "The to field is required: the receiver's email, or phone with country_code.")
	case ref.ID.Set || ref.PinCode.Set:
		v.Add("to", "Name the receiver by email, or phone with country_code.")
	default:
		u, err := ref.contact(b)
		if e, ok := err.(*Error); ok && e.Code == EInvalid {
			for f, msgs := range e.Fields {
				v["to"+strings.TrimPrefix(f, "customer")] = append(v["to"+strings.TrimPrefix(f, "customer")], msgs...)
			}
		} else if err != nil {
			return 0, "", User{}, err
		}
		to = u
	}
	return points, message, to, v.Err()
}

// TransferJSON is a transfer as the user API shows it.
type TransferJSON struct {
	ID        string  `json:"id"`
	Business  idJSON  `json:"business"`
	Direction string  `json:"direction"` // sent or received, for the member reading it
	Points    int64   `json:"points"`
	Message   string  `json:"message"`
	State     string  `json:"state"`
	To        *string `json:"to"` // the contact it was sent to, for its sender
	Sender    idJSON  `json:"sender"`
	Receiver  *idJSON `json:"receiver"`
	CreatedAt string  `json:"created_at"`
	ExpiresAt *string `json:"expires_at"` // when held points go back, while pending
	SettledAt *string `json:"settled_at"`
}

// NewTransferJSON renders t as the member me reads it: the sender sees
// the contact it went to, the receiver does not.
func NewTransferJSON(t Transfer, me string) TransferJSON {
	out := TransferJSON{ID: t.ID, Business: idJSON{ID: t.BusinessID}, Direction: "received", Points: t.Points, Message: t.Message,
		State: t.State, Sender: idJSON{ID: t.SenderID}, CreatedAt: FormatTime(t.CreatedAt)}
	if t.SenderID == me {
		out.Direction = "sent"
		to := t.ToEmail
		if to == "" {
			to = t.ToPhone
		}
		out.To = &to
	}
	if t.ReceiverID != "" {
		out.Receiver = &idJSON{ID: t.ReceiverID}
	}
	if t.State == TransferPending {
		at := FormatTime(t.ExpiresAt)
		out.ExpiresAt = &at
	}
	if !t.SettledAt.IsZero() {
		at := FormatTime(t.SettledAt)
		out.SettledAt = &at
	}
	return out
}
