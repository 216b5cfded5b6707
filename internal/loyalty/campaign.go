package loyalty

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A campaign sends one message to the customers of a segment, once each,
// with an optional gift, and keeps a holdout: a random share of the
// segment that receives nothing, so that what the campaign brought can be
// measured against it (CampaignReport). Sending draws the recipients
// (every member of the segment then, each recorded as a recipient or in
// the holdout), then reaches each recipient on the first of the
// campaign's channels their marketing consent allows and they have an
// address for; a customer reached by any campaign in the last
// SkipReachedDays days is skipped; nothing goes out in the business's
// quiet hours. Every recipient is written in one transaction with their
// message and gift, so a recipient is reached at most once whatever
// restarts or runs it.

// Campaign states.
const (
	CampaignDraft     = "draft"
	CampaignScheduled = "scheduled" // to send at SendAt
	CampaignSending   = "sending"
	CampaignSent      = "sent"
)

// Campaign channels.
const (
	CampaignEmail = "email"
	CampaignSMS   = "sms"
	CampaignPush  = "push" // an event for the business's app to deliver
)

// What happened to a recipient.
const (
	RecipientPending   = "pending"
	RecipientHoldout   = "holdout"    // drawn into the holdout: nothing sent
	RecipientSent      = "sent"       // a message queued (or the push event written)
	RecipientNoConsent = "no_consent" // no channel of the campaign is allowed
	RecipientNoContact = "no_contact" // allowed, but no address for it
	RecipientRecent    = "recent"     // reached by a campaign in the last SkipReachedDays
	RecipientGone      = "gone"       // no longer an active customer
)

// Campaign is one of a business's campaigns.
type Campaign struct {
	ID              int64
	BusinessID      string
	Name            string
	SegmentID       int64
	Channels        []string // in order of preference
	Subject         string   // e-mail subject, a template
	EmailBody       string   // a template
	SMSBody         string   // a template (also the push text)
	GiftPoints      int64    // points given to each recipient reached, 0 for none
	GiftOfferID     int64    // or a coupon of this offer, 0 for none
	GiftRuleID      int64    // or this earning rule, for the recipients reached only (its conditions name the campaign)
	GiftRuleDays    int      // for their sales within this many days of being reached
	SkipReachedDays int      // 0: reach whoever was reached lately
	QuietStart      string   // "HH:MM" in the business's time zone, "" for none
	QuietEnd        string
	HoldoutPercent  int
	ReportDays      int // the days after sending the report compares
	State           string
	SendAt          time.Time // when scheduled
	StartedAt       time.Time // when drawing began
	FinishedAt      time.Time // when every recipient was done
	DrawAfter       string    // drawing: the last customer id drawn
	Drawn           bool      // every member of the segment was drawn
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// Bounds of a campaign.
const (
	maxCampaignName     = 120
	maxCampaignSubject  = 200
	maxCampaignEmail    = 20_000
	maxCampaignSMS      = 480
	maxCampaignSkipDays = 365
	maxCampaignReport   = 365
	maxHoldoutPercent   = 50
	defaultHoldout      = 10
	defaultReportDays   = 30
	maxGiftPoints       = 1_000_000
	maxGiftRuleDays     = 365
)

// CampaignInput is the body of a campaign create or update.
type CampaignInput struct {
	Name            Opt[string]        `json:"name"`
	SegmentID       Opt[int64]         `json:"segment_id"`
	Channels        Opt[[]string]      `json:"channels"`
	Subject         Opt[string]        `json:"subject"`
	EmailBody       Opt[string]        `json:"email_body"`
	SMSBody         Opt[string]        `json:"sms_body"`
	Gift            Opt[CampaignGift]  `json:"gift"`
	SkipReachedDays Opt[int]           `json:"skip_reached_days"`
	QuietHours      Opt[CampaignQuiet] `json:"quiet_hours"`
	HoldoutPercent  Opt[int]           `json:"holdout_percent"`
	ReportDays      Opt[int]           `json:"report_days"`
}

// CampaignGift is what each recipient reached is given: points, or a
// coupon of an offer (its points are not taken), or an earning rule that
// applies to them only, for Days days from being reached.
type CampaignGift struct {
	Points        int64 `json:"points,omitempty"`
	OfferID       int64 `json:"offer_id,omitempty"`
	EarningRuleID int64 `json:"earning_rule_id,omitempty"`
	Days          int   `json:"days,omitempty"`
}

// Gift is the campaign's gift, nil for none.
func (c Campaign) Gift() *CampaignGift {
	if c.GiftPoints == 0 && c.GiftOfferID == 0 && c.GiftRuleID == 0 {
		return nil
	}
	return &CampaignGift{Points: c.GiftPoints, OfferID: c.GiftOfferID, EarningRuleID: c.GiftRuleID, Days: c.GiftRuleDays}
}

// campaignChecks say whether what a campaign names may be named: a
// segment of the business, an offer whose coupon is a gift (why not, ""
// when it may), an earning rule that is a gift of this campaign (why
// not).
type campaignChecks struct {
	segmentOK func(int64) bool
	offerBad  func(int64) string
	ruleBad   func(int64) string
}

// CampaignQuiet are the hours nothing is sent, in the business's time
// zone ("21:00" to "09:00" wraps midnight).
type CampaignQuiet struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

// mergeField matches a template's merge fields, such as {{first_name}}.
var mergeField = regexp.MustCompile(`\{\{\s*([a-z_]+)\s*\}\}`)

// MergeFields are the fields a campaign's templates may use.
var MergeFields = []string{"first_name", "last_name", "points", "tier", "business_name", "currency", "unsubscribe_url"}

// unknownMergeField is the first merge field of a template that is not
// one of MergeFields, "" when there is none.
func unknownMergeField(tmpl string) string {
	for _, m := range mergeField.FindAllStringSubmatch(tmpl, -1) {
		if !slices.Contains(MergeFields, m[1]) {
			return m[1]
		}
	}
	return ""
}

// apply validates in and merges it into c (a create when c.ID is 0).
func (in CampaignInput) apply(c *Campaign, checks campaignChecks) error {
	v := Validation{}
	create := c.ID == 0
	text := func(name string, o Opt[string], max int, required bool, to *string) {
		if !o.Set && !create {
			return
		}
		s, _ := o.Value()
		s = strings.TrimSpace(s)
		switch {
		case s == "" && required:
			v.Add(name, "The "+name+" field is required.")
		case len([]rune(s)) > max:
			v.Add(name, "The "+name+" may not be greater than "+strconv.Itoa(max)+" characters.")
		default:
			if bad := unknownMergeField(s); bad != "" {
				v.Add(name, "Unknown merge field {{"+bad+"}}; use "+strings.Join(MergeFields, ", ")+".")
				return
			}
			*to = s
		}
	}
	text("name", in.Name, maxCampaignName, true, &c.Name)
	text("subject", in.Subject, maxCampaignSubject, false, &c.Subject)
	text("email_body", in.EmailBody, maxCampaignEmail, false, &c.EmailBody)
	text("sms_body", in.SMSBody, maxCampaignSMS, false, &c.SMSBody)
	if in.SegmentID.Set || create {
		id, ok := in.SegmentID.Value()
		switch {
		case !ok:
			v.Add("segment_id", "The segment_id field is required: the segment the campaign goes to.")
		case !checks.segmentOK(id):
			v.Add("segment_id", "The segment_id must be the id of one of the business's segments.")
		default:
			c.SegmentID = id
		}
	}
	if in.Channels.Set || create {
		chs, ok := in.Channels.Value()
		if !ok {
			chs = []string{CampaignEmail}
		}
		var out []string
		for _, ch := range chs {
			switch ch {
			case CampaignEmail, CampaignSMS, CampaignPush:
				if !slices.Contains(out, ch) {
					out = append(out, ch)
				}
			default:
				v.Add("channels", "Each channel must be email, sms or push.")
			}
		}
		if len(out) == 0 && !v.Has("channels") {
			v.Add("channels", "Name at least one channel: email, sms or push.")
		}
		c.Channels = out
	}
	if in.Gift.Set || create {
		c.GiftPoints, c.GiftOfferID, c.GiftRuleID, c.GiftRuleDays = 0, 0, 0, 0
		if g, ok := in.Gift.Value(); ok {
			kinds := 0
			for _, given := range []bool{g.Points != 0, g.OfferID != 0, g.EarningRuleID != 0} {
				if given {
					kinds++
				}
			}
			switch {
			case kinds != 1:
				v.Add("gift", "A gift is points, offer_id (a coupon of the offer) or earning_rule_id (with days), one of them.")
			case g.EarningRuleID != 0:
				if why := checks.ruleBad(g.EarningRuleID); why != "" {
					v.Add("gift.earning_rule_id", why)
				}
				if g.Days < 1 || g.Days > maxGiftRuleDays {
					v.Add("gift.days", "The gift's days must be between 1 and "+strconv.Itoa(maxGiftRuleDays)+
						": how long after being reached a recipient earns by the rule.")
				}
			case g.Days != 0:
				v.Add("gift.days", "The days go with an earning_rule_id: how long the rule applies to a recipient.")
			case g.OfferID != 0:
				if why := checks.offerBad(g.OfferID); why != "" {
					v.Add("gift.offer_id", why)
				}
			case g.Points < 1 || g.Points > maxGiftPoints:
				v.Add("gift.points", "The gift's points must be between 1 and "+strconv.Itoa(maxGiftPoints)+".")
			}
			c.GiftPoints, c.GiftOfferID, c.GiftRuleID, c.GiftRuleDays = g.Points, g.OfferID, g.EarningRuleID, g.Days
		}
	}
	bounded := func(name string, o Opt[int], lo, hi, def int, to *int) {
		if !o.Set && !create {
			return
		}
		n, ok := o.Value()
		if !ok {
			n = def
		}
		if n < lo || n > hi {
			v.Add(name, "The "+name+" must be between "+strconv.Itoa(lo)+" and "+strconv.Itoa(hi)+".")
			return
		}
		*to = n
	}
	bounded("skip_reached_days", in.SkipReachedDays, 0, maxCampaignSkipDays, 0, &c.SkipReachedDays)
	bounded("holdout_percent", in.HoldoutPercent, 0, maxHoldoutPercent, defaultHoldout, &c.HoldoutPercent)
	bounded("report_days", in.ReportDays, 1, maxCampaignReport, defaultReportDays, &c.ReportDays)
	if in.QuietHours.Set || create {
		c.QuietStart, c.QuietEnd = "", ""
		if q, ok := in.QuietHours.Value(); ok {
			if !clockTime.MatchString(q.Start) || !clockTime.MatchString(q.End) || q.Start == q.End {
				v.Add("quiet_hours", "The quiet hours are a start and an end, HH:MM each (24-hour clock), not the same.")
			}
			c.QuietStart, c.QuietEnd = q.Start, q.End
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	return c.ready()
}

// ready checks that the campaign can reach someone on each channel it
// names.
func (c *Campaign) ready() error {
	v := Validation{}
	for _, ch := range c.Channels {
		switch {
		case ch == CampaignEmail && (c.Subject == "" || c.EmailBody == ""):
			if c.Subject == "" {
				v.Add("subject", "An e-mail campaign needs a subject.")
			}
			if c.EmailBody == "" {
				v.Add("email_body", "An e-mail campaign needs an email_body.")
			}
		case (ch == CampaignSMS || ch == CampaignPush) && c.SMSBody == "":
			v.Add("sms_body", "A text or push campaign needs an sms_body.")
		}
	}
	return v.Err()
}

// quiet reports whether t, in loc, is in the campaign's quiet hours.
func (c Campaign) quiet(t time.Time, loc *time.Location) bool {
	if c.QuietStart == "" {
		return false
	}
	hm := t.In(loc).Format("15:04")
	if c.QuietStart < c.QuietEnd {
		return hm >= c.QuietStart && hm < c.QuietEnd
	}
	return hm >= c.QuietStart || hm < c.QuietEnd
}

// inHoldout draws a customer into the campaign's holdout or not: the same
// answer for the same campaign and customer every time it is asked (a
// keyed hash, uniform over customers), so a draw that is resumed after a
// restart draws as it began.
func (c Campaign) inHoldout(customerID string) bool {
	if c.HoldoutPercent <= 0 {
		return false
	}
	h := sha256.Sum256([]byte("holdout|" + strconv.FormatInt(c.ID, 10) + "|" + customerID))
	return binary.BigEndian.Uint64(h[:8])%10000 < uint64(c.HoldoutPercent)*100
}

// Recipient is one customer drawn by a campaign, with what happened.
type Recipient struct {
	CampaignID  int64
	BusinessID  string
	CustomerID  string
	Outcome     string
	Channel     string // the channel reached on
	MessageID   int64  // the outbox message, 0 for none (push, or not sent)
	GiftEntryID int64
	DoneAt      time.Time
}

// RecipientFacts are what reaching a recipient reads of the customer.
type RecipientFacts struct {
	Customer    Customer // zero ID when no longer an active customer
	Consent     ContactChannels
	TierName    string    // the level last announced, "" for none
	LastReached time.Time // the last time any campaign reached them, zero for never
}

// Merge renders a template for a recipient: each merge field replaced by
// its value.
func Merge(tmpl string, values map[string]string) string {
	return mergeField.ReplaceAllStringFunc(tmpl, func(m string) string {
		return values[mergeField.FindStringSubmatch(m)[1]]
	})
}

// UnsubscribeToken is the signed token of a customer's unsubscribe link:
// it names the business and the customer, and only this server makes it.
func UnsubscribeToken(key []byte, businessID, customerID string) string {
	return businessID + "." + customerID + "." + unsubscribeMAC(key, businessID, customerID)
}

func unsubscribeMAC(key []byte, businessID, customerID string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("unsubscribe|" + businessID + "|" + customerID))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:18])
}

// ParseUnsubscribeToken returns the business and customer a token names;
// ok false when it is not one this server made.
func ParseUnsubscribeToken(key []byte, token string) (businessID, customerID string, ok bool) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 || len(key) == 0 {
		return "", "", false
	}
	want := unsubscribeMAC(key, parts[0], parts[1])
	if !hmac.Equal([]byte(want), []byte(parts[2])) {
		return "", "", false
	}
	return parts[0], parts[1], true
}
