package web

import (
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// A campaign's form, in the merchant's words: who (a segment), how (e-mail,
// text, the app), what (the subject and texts, with personal fields), a
// gift, and the settings most leave as they are (the holdout, skipping
// members reached lately, quiet hours, the days the report compares).
// This file turns the posted form into the domain's CampaignInput and
// back, and the domain's refusals into the form's words; what a campaign
// accepts is the domain's.

// campaignForm is a campaign's form as posted or as read from a campaign.
type campaignForm struct {
	Name, SegmentID             string
	Channels                    []string
	Subject, EmailBody, SMSBody string
	Gift                        string // "", "points", "coupon" or "rule"
	GiftPoints, GiftOfferID     string
	GiftRuleID, GiftDays        string // an earning rule given through the API, kept
	Holdout, SkipDays           string
	QuietStart, QuietEnd        string
	ReportDays                  string
}

// Has reports whether the channel ch is ticked.
func (f campaignForm) Has(ch string) bool { return slices.Contains(f.Channels, ch) }

// More reports whether a setting folded under "Settings" differs from a
// new campaign's, so that the fold opens on it.
func (f campaignForm) More() bool {
	return f.Holdout != "10" || f.SkipDays != "" && f.SkipDays != "0" || f.QuietStart != "" || f.QuietEnd != "" || f.ReportDays != "30"
}

// newCampaignForm is a new campaign's form: by e-mail, no gift, the
// domain's default holdout and report days shown.
func newCampaignForm() campaignForm {
	return campaignForm{Channels: []string{loyalty.CampaignEmail}, Holdout: "10", ReportDays: "30"}
}

// postedCampaign reads a campaign's form from a post.
func postedCampaign(v url.Values) campaignForm {
	t := func(name string) string { return strings.TrimSpace(v.Get(name)) }
	return campaignForm{Name: t("name"), SegmentID: t("segment_id"), Channels: v["channels"],
		Subject: t("subject"), EmailBody: strings.TrimSpace(strings.ReplaceAll(v.Get("email_body"), "\r\n", "\n")),
		SMSBody: t("sms_body"), Gift: t("gift"), GiftPoints: t("gift_points"), GiftOfferID: t("gift_offer_id"),
		GiftRuleID: t("gift_rule_id"), GiftDays: t("gift_days"),
		Holdout: t("holdout_percent"), SkipDays: t("skip_reached_days"), QuietStart: t("quiet_start"), QuietEnd: t("quiet_end"),
		ReportDays: t("report_days")}
}

// campaignFormOf is a saved campaign's form.
func campaignFormOf(c loyalty.Campaign) campaignForm {
	f := campaignForm{Name: c.Name, SegmentID: strconv.FormatInt(c.SegmentID, 10), Channels: c.Channels,
		Subject: c.Subject, EmailBody: c.EmailBody, SMSBody: c.SMSBody, Holdout: strconv.Itoa(c.HoldoutPercent),
		QuietStart: c.QuietStart, QuietEnd: c.QuietEnd, ReportDays: strconv.Itoa(c.ReportDays)}
	if c.SkipReachedDays > 0 {
		f.SkipDays = strconv.Itoa(c.SkipReachedDays)
	}
	switch {
	case c.GiftPoints > 0:
		f.Gift, f.GiftPoints = "points", strconv.FormatInt(c.GiftPoints, 10)
	case c.GiftOfferID != 0:
		f.Gift, f.GiftOfferID = "coupon", strconv.FormatInt(c.GiftOfferID, 10)
	case c.GiftRuleID != 0:
		f.Gift, f.GiftRuleID, f.GiftDays = "rule", strconv.FormatInt(c.GiftRuleID, 10), strconv.Itoa(c.GiftRuleDays)
	}
	return f
}

// input is the form's CampaignInput, or the boxes it cannot read with
// what is wrong with each. Every field is given, so an edit replaces the
// whole draft.
func (f campaignForm) input() (loyalty.CampaignInput, map[string][]string) {
	bad := map[string][]string{}
	var in loyalty.CampaignInput
	in.Name, in.Subject, in.EmailBody, in.SMSBody = loyalty.Some(f.Name), loyalty.Some(f.Subject), loyalty.Some(f.EmailBody), loyalty.Some(f.SMSBody)
	in.SegmentID = loyalty.Opt[int64]{Set: true, Null: true}
	if f.SegmentID != "" {
		if id, err := strconv.ParseInt(f.SegmentID, 10, 64); err == nil {
			in.SegmentID = loyalty.Some(id)
		} else {
			bad["segment_id"] = []string{"Choose a segment from the list."}
		}
	}
	in.Channels = loyalty.Some(append([]string{}, f.Channels...))
	whole := func(name, s string, to *loyalty.Opt[int]) {
		*to = loyalty.Opt[int]{Set: true, Null: true}
		if s == "" {
			return
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			bad[name] = append(bad[name], "Enter a whole number, such as 10.")
			return
		}
		*to = loyalty.Some(n)
	}
	whole("holdout_percent", f.Holdout, &in.HoldoutPercent)
	whole("report_days", f.ReportDays, &in.ReportDays)
	whole("skip_reached_days", f.SkipDays, &in.SkipReachedDays)
	if f.SkipDays == "" {
		in.SkipReachedDays = loyalty.Some(0)
	}
	in.Gift = loyalty.Opt[loyalty.CampaignGift]{Set: true, Null: true}
	switch f.Gift {
	case "points":
		n, err := strconv.ParseInt(f.GiftPoints, 10, 64)
		if err != nil {
			bad["gift_points"] = []string{"Enter the points each member reached is given, such as 50."}
		} else {
			in.Gift = loyalty.Some(loyalty.CampaignGift{Points: n})
		}
	case "coupon":
		n, err := strconv.ParseInt(f.GiftOfferID, 10, 64)
		if err != nil {
			bad["gift_offer_id"] = []string{"Choose the offer whose coupon each member reached is given."}
		} else {
			in.Gift = loyalty.Some(loyalty.CampaignGift{OfferID: n})
		}
	case "rule":
		// Given through the API; the form keeps it as it was.
		id, err1 := strconv.ParseInt(f.GiftRuleID, 10, 64)
		days, err2 := strconv.Atoi(f.GiftDays)
		if err1 != nil || err2 != nil {
			bad["gift"] = []string{"Choose the gift again."}
		} else {
			in.Gift = loyalty.Some(loyalty.CampaignGift{EarningRuleID: id, Days: days})
		}
	}
	in.QuietHours = loyalty.Opt[loyalty.CampaignQuiet]{Set: true, Null: true}
	switch {
	case f.QuietStart == "" && f.QuietEnd == "":
	case f.QuietStart == "" || f.QuietEnd == "":
		bad["quiet_hours"] = []string{"Give both when the quiet hours begin and when they end, or neither."}
	default:
		in.QuietHours = loyalty.Some(loyalty.CampaignQuiet{Start: f.QuietStart, End: f.QuietEnd})
	}
	return in, bad
}

// campaign is the form as a campaign to preview: what it can read of it.
func (f campaignForm) campaign() loyalty.Campaign {
	c := loyalty.Campaign{Name: f.Name, Channels: f.Channels, Subject: f.Subject, EmailBody: f.EmailBody, SMSBody: f.SMSBody}
	c.SegmentID, _ = strconv.ParseInt(f.SegmentID, 10, 64)
	return c
}

// campaignBoxes are the form's boxes the domain's fields are shown
// beside, where their names differ.
var campaignBoxes = map[string]string{"gift.points": "gift_points", "gift.offer_id": "gift_offer_id"}

// campaignSaid replaces the domain's words for a refusal the form says
// otherwise ("The segment_id field is required: ..."), by box.
var campaignSaid = map[string]map[string]string{
	"name":       {"required": "Give the campaign a name, such as “We miss you”."},
	"segment_id": {"required": "Choose the segment the campaign goes to.", "deleted": "The segment was deleted: choose another."},
	"channels":   {"at least one": "Choose at least one way to reach them."},
	"subject":    {"needs": "An e-mail needs a subject."},
	"email_body": {"needs": "An e-mail needs a message."},
	"sms_body":   {"needs": "A text message or an app notification needs its text."},
}

// campaignFieldWords name the domain's fields in its other messages.
var campaignFieldWords = map[string]string{
	"holdout_percent": "share held out", "skip_reached_days": "number of days", "report_days": "number of days compared",
	"offer_id": "offer", "email_body": "message", "sms_body": "text", "segment_id": "segment",
}

// mergeToken matches a merge field as a template writes it.
var mergeToken = regexp.MustCompile(`\{\{\s*[a-z_]+\s*\}\}`)

// fieldWord matches a field's name in a domain message.
var fieldWord = regexp.MustCompile(`\b[a-z]+(?:_[a-z]+)+\b`)

// campaignRefusal puts the domain's refusal of a campaign on the form's
// boxes, in the form's words.
func campaignRefusal(fields map[string][]string) map[string][]string {
	out := map[string][]string{}
	for name, msgs := range fields {
		box := name
		if b, ok := campaignBoxes[name]; ok {
			box = b
		}
		for _, m := range msgs {
			said := ""
			if tok := mergeToken.FindString(m); tok != "" && strings.HasPrefix(m, "Unknown merge field") {
				said = tok + " is not a personal field: insert one with the buttons under the box."
			}
			for key, s := range campaignSaid[box] {
				if strings.Contains(m, key) {
					said = s
				}
			}
			if said == "" && !strings.Contains(m, "{{") {
				said = fieldWord.ReplaceAllStringFunc(m, func(w string) string {
					if s, ok := campaignFieldWords[w]; ok {
						return s
					}
					return w
				})
			}
			if said == "" {
				said = m
			}
			if !slices.Contains(out[box], said) {
				out[box] = append(out[box], said)
			}
		}
	}
	return out
}

// mergeTokens are the personal fields the form offers to insert, in the
// merchant's words.
var mergeTokens = []option{
	{"{{first_name}}", "First name"}, {"{{last_name}}", "Last name"}, {"{{points}}", "Points"},
	{"{{tier}}", "Tier"}, {"{{business_name}}", "Your name"}, {"{{unsubscribe_url}}", "Unsubscribe link"},
}
