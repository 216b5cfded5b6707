package loyalty

import (
	"context"
	"time"
)

// run does up to Batches batches of one campaign.
func (r *CampaignRunner) run(ctx context.Context, c Campaign, renew func() bool) (int, error) {
	b, err := r.Store.Business(ctx, c.BusinessID)
	if err != nil {
		return 0, err
	}
	st := ClockedStore(r.Store, b.ClockOffset)
	now := st.Now()
	if c.SendAt.After(now) {
		return 0, nil
	}
	done := 0
	for range orDefault(r.Batches, 20) {
		if !renew() {
			return done, nil
		}
		now = st.Now()
		var n int
		var more bool
		switch {
		case c.State == CampaignScheduled:
			c.State, c.StartedAt, c.UpdatedAt = CampaignSending, now, now
			err = st.WithTx(ctx, func(tx Tx) error { return tx.UpdateCampaign(ctx, &c) })
			more = true
		case !c.Drawn:
			n, err = r.draw(ctx, st, b, &c, now)
			more = true
		default:
			n, more, err = r.reach(ctx, st, b, &c, now, renew)
		}
		done += n
		if err != nil || !more {
			return done, err
		}
	}
	return done, nil
}

// draw records the next batch of the segment's members as recipients,
// each in the holdout or not (Campaign.inHoldout).
func (r *CampaignRunner) draw(ctx context.Context, st Store, b Business, c *Campaign, now time.Time) (int, error) {
	segs := SegmentService{Store: st}
	seg, err := st.Segment(ctx, b.ID, c.SegmentID)
	var crit CustomerCriteria
	switch {
	case ErrorCode(err) == ENotFound:
		crit = CustomerCriteria{Tier: &TierCriterion{}} // deleted since: nobody more
	case err != nil:
		return 0, err
	default:
		if crit, err = segs.criteria(ctx, b, seg.Filter); err != nil {
			return 0, err
		}
	}
	limit := orDefault(r.Batch, 500)
	cands, err := st.Candidates(ctx, b.ID, crit, c.DrawAfter, limit)
	if err != nil {
		return 0, err
	}
	rs := make([]Recipient, len(cands))
	for i, cand := range cands {
		rs[i] = Recipient{CampaignID: c.ID, BusinessID: b.ID, CustomerID: cand.CustomerID, Outcome: RecipientPending}
		if c.inHoldout(cand.CustomerID) {
			rs[i].Outcome, rs[i].DoneAt = RecipientHoldout, now
		}
	}
	next := *c
	if len(cands) > 0 {
		next.DrawAfter = cands[len(cands)-1].CustomerID
	}
	next.Drawn, next.UpdatedAt = len(cands) < limit, now
	err = st.WithTx(ctx, func(tx Tx) error {
		if err := tx.InsertRecipients(ctx, rs); err != nil {
			return err
		}
		return tx.UpdateCampaign(ctx, &next)
	})
	if err == nil {
		*c = next
	}
	return len(cands), err
}

// reach reaches the next batch of pending recipients, unless it is quiet
// hours for the business; more is false once none is left (the campaign
// is then sent), it is quiet, or the lease was lost (renew).
func (r *CampaignRunner) reach(ctx context.Context, st Store, b Business, c *Campaign, now time.Time, renew func() bool) (n int, more bool, err error) {
	rules, err := st.Rules(ctx, b)
	if err != nil {
		return 0, false, err
	}
	if c.quiet(now, rules.location()) {
		return 0, false, nil
	}
	limit := orDefault(r.Batch, 500)
	ids, err := st.PendingRecipients(ctx, c.ID, RecipientPending, limit)
	if err != nil {
		return 0, false, err
	}
	if len(ids) == 0 {
		c.State, c.FinishedAt, c.UpdatedAt = CampaignSent, now, now
		return 0, false, st.WithTx(ctx, func(tx Tx) error { return tx.UpdateCampaign(ctx, c) })
	}
	queued := false
	for start := 0; start < len(ids); {
		some := ids[start:min(start+r.chunk(), len(ids))]
		if err := r.pace(ctx, len(some)); err != nil {
			return n, false, err
		}
		if !renew() {
			break // another instance took over: what is left is its
		}
		sent, err := r.reachSome(ctx, st, b, *c, some)
		if err != nil {
			return n, false, err
		}
		queued = queued || sent
		n += len(some)
		start += len(some)
	}
	if queued && r.Notify != nil {
		r.Notify()
	}
	return n, true, nil
}

// reachSome reaches some pending recipients in one transaction, so that
// a campaign's sending commits once for several of them. When any of them
// fails (a gift the ledger refuses, a recipient another run reached)
// nothing of theirs is kept, and each is reached alone (reachOne).
func (r *CampaignRunner) reachSome(ctx context.Context, st Store, b Business, c Campaign, ids []string) (bool, error) {
	if len(ids) > 1 {
		sent := false
		err := st.WithTx(ctx, func(tx Tx) error {
			b, err := withRules(ctx, tx, b)
			if err != nil {
				return err
			}
			for _, id := range ids {
				s, err := r.reachIn(ctx, tx, b, c, id)
				if err != nil {
					return err
				}
				sent = sent || s
			}
			return nil
		})
		if err == nil || ErrorCode(err) == EInternal {
			return sent, err
		}
	}
	sent := false
	for _, id := range ids {
		s, err := r.reachOne(ctx, st, b, c, id)
		if err != nil {
			return sent, err
		}
		sent = sent || s
	}
	return sent, nil
}

// reachOne decides and does what a campaign does for one pending
// recipient, in one transaction (reachIn). A gift the ledger refuses (the
// customer was disabled, say) fails the recipient alone.
func (r *CampaignRunner) reachOne(ctx context.Context, st Store, b Business, c Campaign, customerID string) (bool, error) {
	sent := false
	err := st.WithTx(ctx, func(tx Tx) error {
		b, err := withRules(ctx, tx, b)
		if err != nil {
			return err
		}
		sent, err = r.reachIn(ctx, tx, b, c, customerID)
		return err
	})
	switch {
	case err == errAlreadyDone:
		return false, nil
	case err != nil && ErrorCode(err) != EInternal:
		// The ledger refused the gift: the recipient fails, alone.
		return false, st.WithTx(ctx, func(tx Tx) error {
			_, err := tx.FinishRecipient(ctx, Recipient{CampaignID: c.ID, BusinessID: b.ID, CustomerID: customerID,
				Outcome: RecipientFailed, DoneAt: tx.Now()}, RecipientPending)
			return err
		})
	}
	return sent, err
}

// reachIn decides and does what a campaign does for one pending recipient
// in tx: the outcome recorded, and for a recipient reached the message
// (or push event) and the gift. It reports whether a message was queued;
// errAlreadyDone when another run reached the recipient first.
func (r *CampaignRunner) reachIn(ctx context.Context, tx Tx, b Business, c Campaign, customerID string) (bool, error) {
	now := tx.Now()
	f, err := tx.RecipientFacts(ctx, b.ID, customerID, RecipientSent)
	if err != nil {
		return false, err
	}
	rec := Recipient{CampaignID: c.ID, BusinessID: b.ID, CustomerID: customerID, DoneAt: now}
	rec.Outcome, rec.Channel = r.outcome(c, f, now)
	if rec.Outcome == RecipientSent {
		if rec.MessageID, err = r.deliver(ctx, tx, b, c, f, rec.Channel); err != nil {
			return false, err
		}
	}
	if rec.Outcome == RecipientSent && (c.GiftPoints > 0 || c.GiftOfferID != 0) {
		var id int64
		if c.GiftOfferID != 0 {
			id, err = giveCoupon(ctx, tx, b, customerID, c.GiftOfferID, "Campaign: "+c.Name)
		} else {
			id, err = givePoints(ctx, tx, b, customerID, c.GiftPoints, "Campaign: "+c.Name)
		}
		if err != nil {
			return false, err
		}
		rec.GiftEntryID = id
	}
	ok, err := tx.FinishRecipient(ctx, rec, RecipientPending)
	if err != nil {
		return false, err
	}
	if !ok {
		return false, errAlreadyDone
	}
	return rec.MessageID != 0, nil
}

// withRules returns b with a state that holds its rules, read in tx, and
// nothing else (what else a change needs is read as without a state), so
// that the recipients of one transaction read the rules once.
func withRules(ctx context.Context, tx Tx, b Business) (Business, error) {
	if b.Loaded != nil {
		return b, nil
	}
	rules, err := tx.Rules(ctx, b)
	if err != nil {
		return b, err
	}
	b.Loaded = &BusinessState{Rules: rules, HasPointsOffers: true, HasEarningRules: true, HasPunchCards: true}
	return b, nil
}

// RecipientFailed: the ledger refused the recipient's gift; nothing was sent.
const RecipientFailed = "failed"

var errAlreadyDone = Errorf(EConflict, "The recipient was reached by another run.")
