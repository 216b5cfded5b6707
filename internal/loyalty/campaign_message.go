package loyalty

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// EventCampaignMessage is a campaign's message for a customer reached by
// push: the business's app delivers it (data: campaignMessageJSON).
const EventCampaignMessage = "campaign.message"

func init() { EventTypes = append(EventTypes, EventCampaignMessage) }

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
