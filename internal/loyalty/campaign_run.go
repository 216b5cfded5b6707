package loyalty

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/loyalty/loyalty/internal/worker"
)

// EventCampaignMessage is a campaign's message for a customer reached by
// push: the business's app delivers it (data: campaignMessageJSON).
const EventCampaignMessage = "campaign.message"

func init() { EventTypes = append(EventTypes, EventCampaignMessage) }

// CampaignRunner sends the campaigns that are due: it draws each one's
// recipients from its segment, then reaches them a batch at a time,
// outside quiet hours, each recipient in a transaction of its own. One
// instance at a time runs it (a lease, renewed between batches); what a
// stopped run left is taken up by the next, and a recipient done is
// never done again (FinishRecipient).
type CampaignRunner struct {
	Store  Store
	Holder string // this instance's name on the lease
	Logger *slog.Logger
	Poll   time.Duration // how often to look for due campaigns (5s)
	// Lease is how long a run holds the lease (15s) unless renewed: the
	// run renews it every third of that, between recipients too, so a
	// batch at any rate keeps it, and an instance that died (SIGKILL) is
	// taken over within Lease and a Poll.
	Lease time.Duration
	Batch int // customers drawn, or recipients reached, per batch (500)
	// Batches bounds the batches of one campaign per run (20), so one
	// big campaign does not keep the others waiting.
	Batches int
	// UnsubscribeKey signs unsubscribe links; UnsubscribeURL is the page
	// they open (a token is appended). Without them e-mail and text are
	// not sent (the recipient is left pending): a campaign needs a way out.
	UnsubscribeKey []byte
	UnsubscribeURL string
	// Notify wakes the outbox worker after a batch queued messages.
	Notify func()
	// Rate bounds the recipients reached per second across every
	// campaign (DefaultCampaignRate when 0), so that sending never crowds
	// out the rewards the service is there for.
	Rate float64

	limiter *rate.Limiter // made on first use
}

// DefaultCampaignRate is the recipients reached per second unless set:
// on a two-core machine, 30 a second (each a message and a gift) slowed
// concurrent rewards by under 10 % (BenchmarkRewardsWhileSending; 100 a
// second by a fifth).
const DefaultCampaignRate = 30

// pace waits until another recipient may be reached.
func (r *CampaignRunner) pace(ctx context.Context) error {
	if r.limiter == nil {
		per := r.Rate
		if per <= 0 {
			per = DefaultCampaignRate
		}
		r.limiter = rate.NewLimiter(rate.Limit(per), max(1, int(per/10)))
	}
	return r.limiter.Wait(ctx)
}

const campaignLease = "campaign_runner"

// RunOnce does what is due of every active campaign, if this instance
// holds the lease; it returns how many recipients it drew or reached.
func (r *CampaignRunner) RunOnce(ctx context.Context) (int, error) {
	lease := orDefault(r.Lease, 15*time.Second)
	var renewed time.Time // by this process's clock: when the lease was last taken
	take := func() bool {
		now := r.Store.Now()
		ok, err := r.Store.TakeLease(ctx, campaignLease, r.Holder, now, now.Add(lease))
		renewed = time.Now()
		return ok && err == nil
	}
	// renew keeps the lease, taking it again once a third of it has gone;
	// false once another instance holds it.
	renew := func() bool {
		return time.Since(renewed) < lease/3 || take()
	}
	if !take() {
		return 0, nil
	}
	active, err := r.Store.ActiveCampaigns(ctx, []string{CampaignScheduled, CampaignSending})
	if err != nil {
		return 0, err
	}
	total := 0
	for _, c := range active {
		n, err := r.run(ctx, c, renew)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

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
	for _, id := range ids {
		if err := r.pace(ctx); err != nil {
			return n, false, err
		}
		if !renew() {
			break // another instance took over: what is left is its
		}
		sent, err := r.reachOne(ctx, st, b, *c, id)
		if err != nil {
			return n, false, err
		}
		queued = queued || sent
		n++
	}
	if queued && r.Notify != nil {
		r.Notify()
	}
	return n, true, nil
}

// reachOne decides and does what a campaign does for one pending
// recipient, in one transaction: the outcome recorded, and for a
// recipient reached the message (or push event) and the gift. A gift
// the ledger refuses (the customer was disabled, say) fails the
// recipient alone.
func (r *CampaignRunner) reachOne(ctx context.Context, st Store, b Business, c Campaign, customerID string) (bool, error) {
	sent := false
	err := st.WithTx(ctx, func(tx Tx) error {
		now := tx.Now()
		f, err := tx.RecipientFacts(ctx, b.ID, customerID, RecipientSent)
		if err != nil {
			return err
		}
		rec := Recipient{CampaignID: c.ID, BusinessID: b.ID, CustomerID: customerID, DoneAt: now}
		rec.Outcome, rec.Channel = r.outcome(c, f, now)
		if rec.Outcome == RecipientSent {
			if rec.MessageID, err = r.deliver(ctx, tx, b, c, f, rec.Channel); err != nil {
				return err
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
				return err
			}
			rec.GiftEntryID = id
		}
		ok, err := tx.FinishRecipient(ctx, rec, RecipientPending)
		if err != nil {
			return err
		}
		if !ok {
			return errAlreadyDone
		}
		sent = rec.MessageID != 0
		return nil
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

// RecipientFailed: the ledger refused the recipient's gift; nothing was sent.
const RecipientFailed = "failed"

var errAlreadyDone = Errorf(EConflict, "The recipient was reached by another run.")

// outcome decides what a campaign does for a recipient: the first of its
// channels the marketing consent allows and the customer can be reached
// on.
func (r *CampaignRunner) outcome(c Campaign, f RecipientFacts, now time.Time) (outcome, channel string) {
	if f.Customer.ID == "" {
		return RecipientGone, ""
	}
	if c.SkipReachedDays > 0 && !f.LastReached.IsZero() && f.LastReached.After(now.AddDate(0, 0, -c.SkipReachedDays)) {
		return RecipientRecent, ""
	}
	allowed := false
	for _, ch := range c.Channels {
		switch {
		case ch == CampaignEmail && f.Consent.Email:
			allowed = true
			if f.Customer.Email != "" && r.canLink() {
				return RecipientSent, ch
			}
		case ch == CampaignSMS && f.Consent.SMS:
			allowed = true
			if f.Customer.Phone != "" && r.canLink() {
				return RecipientSent, ch
			}
		case ch == CampaignPush && f.Consent.Push:
			return RecipientSent, ch
		}
	}
	if allowed {
		return RecipientNoContact, ""
	}
	return RecipientNoConsent, ""
}

func (r *CampaignRunner) canLink() bool { return len(r.UnsubscribeKey) > 0 && r.UnsubscribeURL != "" }

// values are a recipient's merge fields.
func (r *CampaignRunner) values(b Business, c Campaign, f RecipientFacts) map[string]string {
	return map[string]string{
		"first_name": f.Customer.FirstName, "last_name": f.Customer.LastName,
		"points": strconv.FormatInt(f.Customer.Balance.Points, 10), "tier": f.TierName,
		"business_name": b.Name, "currency": b.Currency, "unsubscribe_url": r.unsubscribeURL(b.ID, f.Customer.ID),
	}
}

func (r *CampaignRunner) unsubscribeURL(businessID, customerID string) string {
	return r.UnsubscribeURL + "/" + UnsubscribeToken(r.UnsubscribeKey, businessID, customerID)
}

// message renders a recipient's e-mail or text. Each carries the way
// out: an e-mail its List-Unsubscribe headers (one click, RFC 8058) and
// a link in its text, a text the link unless the template has it.
func (r *CampaignRunner) message(b Business, c Campaign, f RecipientFacts, channel string) *Message {
	to := f.Customer.Phone
	if channel == CampaignEmail {
		to = f.Customer.Email
	}
	return renderMessage(b, c, r.values(b, c, f), to, channel)
}

// renderMessage renders a campaign's e-mail or text to one address with
// the merge fields' values (the unsubscribe link among them): the one
// rendering of what a recipient receives, for the runner and the preview.
func renderMessage(b Business, c Campaign, vals map[string]string, to, channel string) *Message {
	link := vals["unsubscribe_url"]
	if channel == CampaignEmail {
		body := Merge(c.EmailBody, vals)
		if !strings.Contains(c.EmailBody, "unsubscribe_url") {
			body += "\n\n--\nYou receive this because you agreed to hear from " + b.Name + ". To stop: " + link
		}
		return &Message{Channel: ChannelEmail, To: to, Subject: Merge(c.Subject, vals), Body: body,
			Headers: map[string]string{"List-Unsubscribe": "<" + link + ">", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}}
	}
	body := Merge(c.SMSBody, vals)
	if !strings.Contains(c.SMSBody, "unsubscribe_url") {
		body += " Stop: " + link
	}
	return &Message{Channel: ChannelSMS, To: to, Body: body}
}

// deliver sends a recipient's message on channel, in tx: an e-mail or a
// text through the outbox (its id returned), or the push event.
func (r *CampaignRunner) deliver(ctx context.Context, tx Tx, b Business, c Campaign, f RecipientFacts, channel string) (int64, error) {
	if channel == CampaignPush {
		vals := r.values(b, c, f)
		return 0, record(ctx, tx, b.ID, EventCampaignMessage, campaignMessageJSON{CampaignID: c.ID,
			Customer: campaignCustomer{ID: f.Customer.ID}, Title: Merge(c.Subject, vals), Body: Merge(c.SMSBody, vals)})
	}
	m := r.message(b, c, f, channel)
	if err := tx.EnqueueMessage(ctx, m); err != nil {
		return 0, err
	}
	return m.ID, nil
}

// givePoints gives a customer points by an adjustment on the ledger's
// own road, saying why; it returns the entry's id.
func givePoints(ctx context.Context, tx Tx, b Business, customerID string, points int64, why string) (int64, error) {
	in := TransactionInput{Intent: Some(IntentAdjust), Points: Some(points),
		Customer: Some(CustomerRef{ID: Some(customerID)}), Comments: Some(why)}
	req, err := check(b, &in, tx.Now())
	if err != nil {
		return 0, err
	}
	req.stamp(tx.Now())
	// An adjustment's apply reads nothing of the service.
	if err := req.intent.apply(ctx, nil, tx, req); err != nil {
		return 0, err
	}
	return req.entry.ID, nil
}

// giveCoupon gives a customer a coupon of an offer as a gift (its points
// not taken), on the ledger's own road: the offer's rules hold (active,
// targets, frequency). It returns the entry's id.
func giveCoupon(ctx context.Context, tx Tx, b Business, customerID string, offerID int64, why string) (int64, error) {
	in := TransactionInput{Intent: Some(IntentGetCoupon), Offer: Some(IntRef{ID: Some(offerID)}),
		Customer: Some(CustomerRef{ID: Some(customerID)}), Comments: Some(why)}
	req, err := check(b, &in, tx.Now())
	if err != nil {
		return 0, err
	}
	req.gift = true
	req.stamp(tx.Now())
	// A coupon's apply reads nothing of the service.
	if err := req.intent.apply(ctx, nil, tx, req); err != nil {
		return 0, err
	}
	return req.entry.ID, nil
}

// campaignMessageJSON is the data of a campaign.message event.
type campaignMessageJSON struct {
	CampaignID int64            `json:"campaign_id"`
	Customer   campaignCustomer `json:"customer"`
	Title      string           `json:"title"`
	Body       string           `json:"body"`
}

type campaignCustomer struct {
	ID string `json:"id"`
}

// Start runs the runner in the background until stop is called.
func (r *CampaignRunner) Start(ctx context.Context) (stop func()) {
	return worker.Start(ctx, func(ctx context.Context) {
		worker.Loop(ctx, orDefault(r.Poll, 5*time.Second), nil, func(ctx context.Context) {
			if _, err := r.RunOnce(ctx); err != nil && ctx.Err() == nil {
				r.logger().Error("campaign runner", "err", err)
			}
		})
	})
}

func (r *CampaignRunner) logger() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.Default()
}
