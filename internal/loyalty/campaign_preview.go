package loyalty

import (
	"context"
	"net/mail"
	"slices"
	"strings"
)

// Before a campaign goes, the merchant sees its message as a recipient
// will and may send it to themselves. Both render as the runner does
// (renderMessage), with the details of a real member of the segment, or
// placeholders while it has none, and an unsubscribe link that
// unsubscribes nobody. Neither draws, reaches nor gives anything: a
// campaign's recipients, gifts and holdout are the runner's alone.

// CampaignPreview is a campaign's message as a recipient sees it.
type CampaignPreview struct {
	// Sample is the member whose details fill the merge fields; a zero
	// ID when the segment has nobody, and placeholders fill them.
	Sample Customer
	Email  *Message     // nil unless the campaign sends e-mail
	Text   *Message     // nil unless it sends text messages
	Push   *PushPreview // nil unless it notifies through the app
	// Unknown are the merge fields its templates use that are not
	// MergeFields: they would be left empty.
	Unknown []string
}

// PushPreview is a campaign's notification as the business's app
// receives it (EventCampaignMessage).
type PushPreview struct {
	Title, Body string
}

// placeholders are the merge fields' values while a segment has nobody.
var placeholders = map[string]string{
	"first_name": "[first name]", "last_name": "[last name]", "points": "[points]", "tier": "[tier level]",
}

// previewUnsubscribe is the last part of the unsubscribe link in a
// preview and a test: a link to the page that unsubscribes nobody.
const previewUnsubscribe = "preview"

// Preview renders c's message for the first member of its segment (in id
// order), or with placeholders when the segment has nobody or was
// deleted. c need not be saved: a form being edited is previewed as it
// stands.
func (r *CampaignRunner) Preview(ctx context.Context, b Business, c Campaign) (CampaignPreview, error) {
	st := ClockedStore(r.Store, b.ClockOffset)
	var out CampaignPreview
	f := RecipientFacts{}
	if c.SegmentID != 0 {
		id, err := firstOfSegment(ctx, st, b, c.SegmentID)
		if err != nil {
			return out, err
		}
		if id != "" {
			err := st.WithTx(ctx, func(tx Tx) error {
				var err error
				f, err = tx.RecipientFacts(ctx, b.ID, id, RecipientSent)
				return err
			})
			if err != nil {
				return out, err
			}
		}
	}
	out.Sample = f.Customer
	vals := r.values(b, c, f)
	vals["unsubscribe_url"] = r.UnsubscribeURL + "/" + previewUnsubscribe
	if f.Customer.ID == "" {
		for k, v := range placeholders {
			vals[k] = v
		}
	}
	for _, ch := range c.Channels {
		switch ch {
		case CampaignEmail:
			out.Email = renderMessage(b, c, vals, f.Customer.Email, ch)
		case CampaignSMS:
			out.Text = renderMessage(b, c, vals, f.Customer.Phone, ch)
		case CampaignPush:
			out.Push = &PushPreview{Title: Merge(c.Subject, vals), Body: Merge(c.SMSBody, vals)}
		}
	}
	for _, tmpl := range []string{c.Subject, c.EmailBody, c.SMSBody} {
		for _, m := range mergeField.FindAllStringSubmatch(tmpl, -1) {
			if !slices.Contains(MergeFields, m[1]) && !slices.Contains(out.Unknown, m[1]) {
				out.Unknown = append(out.Unknown, m[1])
			}
		}
	}
	return out, nil
}

// firstOfSegment is the first active customer of a segment in id order,
// "" when it has none or was deleted.
func firstOfSegment(ctx context.Context, st Store, b Business, segmentID int64) (string, error) {
	seg, err := st.Segment(ctx, b.ID, segmentID)
	if ErrorCode(err) == ENotFound {
		return "", nil
	} else if err != nil {
		return "", err
	}
	crit, err := (&SegmentService{Store: st}).criteria(ctx, b, seg.Filter)
	if err != nil {
		return "", err
	}
	cands, err := st.Candidates(ctx, b.ID, crit, "", 1)
	if err != nil || len(cands) == 0 {
		return "", err
	}
	return cands[0].CustomerID, nil
}

// SendTest sends c's e-mail, as Preview renders it, to one address (the
// merchant's own) through the outbox, its subject marked as a test. It
// records no recipient, gives no gift and draws nobody; the campaign is
// not changed. The campaign must send e-mail and have its subject and
// body.
func (r *CampaignRunner) SendTest(ctx context.Context, b Business, c Campaign, to string) (Message, error) {
	if !slices.Contains(c.Channels, CampaignEmail) {
		return Message{}, Invalid("channels", "A test is sent by e-mail: choose e-mail among the channels.")
	}
	if err := c.ready(); err != nil {
		return Message{}, err
	}
	if a, err := mail.ParseAddress(strings.TrimSpace(to)); err != nil || a.Address != strings.TrimSpace(to) {
		return Message{}, Invalid("to", "The test goes to an e-mail address.")
	}
	p, err := r.Preview(ctx, b, c)
	if err != nil {
		return Message{}, err
	}
	m := *p.Email
	m.To, m.Subject = strings.TrimSpace(to), "[Test] "+m.Subject
	if err := ClockedStore(r.Store, b.ClockOffset).WithTx(ctx, func(tx Tx) error { return tx.EnqueueMessage(ctx, &m) }); err != nil {
		return Message{}, err
	}
	if r.Notify != nil {
		r.Notify()
	}
	return m, nil
}
