package loyalty

import (
	"context"
	"fmt"
	"time"
)

// TransferService moves points between members of a business.
type TransferService struct {
	Store Store
}

// Events of a transfer.
const (
	EventTransferSent     = "transfer.sent"     // points left the sender (to a member, or held for someone to join)
	EventTransferReceived = "transfer.received" // the receiver got them
	EventTransferRecalled = "transfer.recalled" // the sender took held points back
	EventTransferReturned = "transfer.returned" // nobody joined in time: held points went back
)

// Send moves points from the member sender to the person in.To: at once
// when they are a member of b, else held for them until they join (an
// invitation goes to them), the sender recalls them or TransferHold
// passes. The sender's balance must cover them (422 naming points); a
// transfer to oneself is a 422 naming to; the business's daily limit per
// sender, when it has one, is a 422 naming points.
func (s *TransferService) Send(ctx context.Context, b Business, sender string, in TransferInput) (Transfer, error) {
	points, message, to, err := in.check(b)
	if err != nil {
		return Transfer{}, err
	}
	var out Transfer
	err = s.Store.WithTx(ctx, func(tx Tx) error {
		now := tx.Now()
		rules, err := rulesOf(ctx, tx, b)
		if err != nil {
			return err
		}
		if limit := rules.TransferMaxPointsPerDay; limit > 0 {
			loc := zoneOf(rules.TimeZone)
			y, m, d := now.In(loc).Date()
			sent, err := tx.SentSince(ctx, b.ID, sender, time.Date(y, m, d, 0, 0, 0, 0, loc).UTC())
			if err != nil {
				return err
			}
			if sent+points > limit {
				return Invalid("points", fmt.Sprintf("A member may send at most %d points a day here; you have %d left today.",
					limit, max(limit-sent, 0)))
			}
		}
		receiver, err := tx.CustomerByContact(ctx, b.ID, to.Email, to.Phone)
		if err != nil && ErrorCode(err) != ENotFound {
			return err
		}
		if err == nil && receiver.ID == sender {
			return Invalid("to", "You cannot send points to yourself.")
		}
		t := Transfer{ID: NewID(), BusinessID: b.ID, SenderID: sender, ToEmail: to.Email, ToPhone: to.Phone, Points: points,
			Message: message, State: TransferPending, CreatedAt: now, ExpiresAt: now.Add(TransferHold)}
		sent := newEntry(b, sender, IntentTransferOut, now)
		sent.Points, sent.Comments = -points, message
		if err := appendEntry(ctx, tx, &sent); err != nil {
			return RenameFields(err, map[string]string{"amount": "points"})
		}
		t.SentEntry = sent.ID
		if err := tx.InsertTransfer(ctx, &t); err != nil {
			return err
		}
		if err := record(ctx, tx, b.ID, EventTransferSent, NewTransferJSON(t, sender)); err != nil {
			return err
		}
		if receiver.ID != "" {
			return completeTransfer(ctx, tx, b, &t, receiver.ID, &out)
		}
		out = t
		return s.invite(ctx, tx, b, t)
	})
	return out, err
}

// invite tells the person a transfer waits for how to receive it.
func (s *TransferService) invite(ctx context.Context, tx Tx, b Business, t Transfer) error {
	kind, to := ContactEmail, t.ToEmail
	if to == "" {
		kind, to = ContactPhone, t.ToPhone
	}
	body := fmt.Sprintf("A friend sent you %d points at %s.", t.Points, b.Name)
	if t.Message != "" {
		body += fmt.Sprintf(" Their message: %q.", t.Message)
	}
	body += fmt.Sprintf(" Join %s's loyalty program with this %s by %s to receive them.\n", b.Name,
		map[string]string{ContactEmail: "e-mail address", ContactPhone: "phone number"}[kind], t.ExpiresAt.Format("2006-01-02"))
	m := messageTo(kind, to, fmt.Sprintf("%d points are waiting for you at %s", t.Points, b.Name), body)
	return tx.EnqueueMessage(ctx, &m)
}

// completeTransfer gives a transfer's points to the receiver: entry 59
// with a lot under the business's rules, the transfer completed, and
// transfer.received. out, when set, receives the transfer as it ends.
func completeTransfer(ctx context.Context, tx Tx, b Business, t *Transfer, receiverID string, out *Transfer) error {
	now := tx.Now()
	in := newEntry(b, receiverID, IntentTransferIn, now)
	in.Points, in.Comments = t.Points, t.Message
	rules, err := rulesOf(ctx, tx, b)
	if err != nil {
		return err
	}
	in.Terms = rules.Terms(IntentTransferIn, now)
	if err := appendEntry(ctx, tx, &in); err != nil {
		return err
	}
	t.ReceiverID, t.State, t.SettledEntry, t.SettledAt = receiverID, TransferCompleted, in.ID, now
	done, err := tx.SettleTransfer(ctx, *t)
	if err != nil {
		return err
	}
	if !done {
		return errTransferMoved
	}
	if out != nil {
		*out = *t
	}
	return record(ctx, tx, b.ID, EventTransferReceived, NewTransferJSON(*t, receiverID))
}

// errTransferMoved undoes a change of a transfer settled meanwhile.
var errTransferMoved = Errorf(EConflict, "The transfer was settled meanwhile.")

// giveBack returns a pending transfer's points to its sender, dated at,
// by an entry reversing the sender's (59, its lots restored), with state
// (recalled or returned) and its event.
func giveBack(ctx context.Context, tx Tx, b Business, t *Transfer, at time.Time, state string) error {
	e := newEntry(b, t.SenderID, IntentTransferIn, at)
	e.ReversesID, e.Points = t.SentEntry, t.Points
	e.Comments = map[string]string{TransferRecalled: "Transfer recalled", TransferReturned: "Transfer not received in time"}[state]
	rules, err := rulesOf(ctx, tx, b)
	if err != nil {
		return err
	}
	e.Terms = rules.Terms(IntentTransferIn, at)
	if err := appendEntry(ctx, tx, &e); err != nil {
		return err
	}
	t.State, t.SettledEntry, t.SettledAt = state, e.ID, at
	done, err := tx.SettleTransfer(ctx, *t)
	if err != nil {
		return err
	}
	if !done {
		return errTransferMoved
	}
	ev := EventTransferRecalled
	if state == TransferReturned {
		ev = EventTransferReturned
	}
	return record(ctx, tx, b.ID, ev, NewTransferJSON(*t, t.SenderID))
}

// Recall takes back points a member sent and that still wait for their
// receiver; a transfer already received or given back is a 422, another
// member's is not found.
func (s *TransferService) Recall(ctx context.Context, b Business, sender, id string) (Transfer, error) {
	var t Transfer
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		var err error
		t, err = tx.Transfer(ctx, b.ID, id)
		if err == nil && t.SenderID != sender {
			err = Errorf(ENotFound, "another member's")
		}
		if err != nil {
			return notFoundField(err, "Transfer not found.")
		}
		if t.State != TransferPending {
			return Invalid("id", "This transfer is "+t.State+": only points still waiting for their receiver can be recalled.")
		}
		return giveBack(ctx, tx, b, &t, tx.Now(), TransferRecalled)
	})
	if err == errTransferMoved {
		return t, Invalid("id", "This transfer was settled meanwhile.")
	}
	return t, err
}

// Transfers returns what a member sent and received in b, newest first.
func (s *TransferService) Transfers(ctx context.Context, b Business, member string) ([]Transfer, error) {
	return s.Store.MemberTransfers(ctx, b.ID, member)
}

// claimTransfers gives a new customer of b the points sent to their
// e-mail or phone while they were not a member.
func claimTransfers(ctx context.Context, tx Tx, b Business, c Customer) error {
	if c.Email == "" && c.Phone == "" {
		return nil
	}
	list, err := tx.PendingTransfersTo(ctx, b.ID, c.Email, c.Phone)
	if err != nil {
		return err
	}
	for i := range list {
		if list[i].SenderID == c.ID {
			continue
		}
		if err := completeTransfer(ctx, tx, b, &list[i], c.ID, nil); err != nil {
			return err
		}
	}
	return nil
}

// ReturnDueTransfers gives back held points nobody joined to receive by
// the end of their hold at or before at (of businessID only, when set),
// a transaction each, dated when the hold ended; it returns how many.
func ReturnDueTransfers(ctx context.Context, st Store, businessID string, at time.Time, limit int) (int, error) {
	due, err := st.DueTransfers(ctx, businessID, at, limit)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, t := range due {
		if t.State != TransferPending || at.Before(t.ExpiresAt) {
			continue
		}
		b, err := st.Business(ctx, t.BusinessID)
		if err != nil {
			return n, err
		}
		err = st.WithTx(ctx, func(tx Tx) error { return giveBack(ctx, tx, b, &t, t.ExpiresAt, TransferReturned) })
		switch {
		case err == errTransferMoved:
		case err != nil:
			return n, err
		default:
			n++
		}
	}
	return n, nil
}
