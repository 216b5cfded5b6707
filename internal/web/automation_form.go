package web

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// An automation's form, in the merchant's words: when it runs (a trigger
// with its days, count, level or punch card), for whom (every member, or
// a segment's), what it does step by step (wait, give points, give a
// coupon, send a message, add a tag) and how often a member may get it.
// This file turns the posted form into the domain's AutomationInput and
// back, and the domain's refusals into the form's words.

// maxSteps is how many steps the form offers (the domain's bound).
const maxSteps = 10

// automationForm is an automation's form as posted or as read from one.
type automationForm struct {
	Name      string
	Enabled   bool
	Trigger   string
	Values    map[string]string // the trigger's boxes: birthday_days, joined_days, no_visit_days, points_expiring_days, visit_count, level_id, lost_level_id, card_id
	SegmentID string
	Period    string
	Steps     []stepForm // maxSteps of them; Shown are shown
	Shown     int
}

// stepForm is one step of the form; Type "" for none.
type stepForm struct {
	Type, Days, Points, OfferID, Tag string
	Channels                         []string
	Subject, EmailBody, SMSBody      string
}

// Has reports whether the step sends on channel ch.
func (s stepForm) Has(ch string) bool { return slices.Contains(s.Channels, ch) }

// triggerDays are the triggers whose days have a box of their own.
var triggerDays = []string{loyalty.TriggerBirthday, loyalty.TriggerJoined, loyalty.TriggerNoVisit, loyalty.TriggerExpiring}

// newAutomationForm is a new automation's form: on, one step.
func newAutomationForm() automationForm {
	return automationForm{Enabled: true, Values: map[string]string{}, Steps: make([]stepForm, maxSteps), Shown: 1}
}

// stepName is the name of a step's box: "s2_points".
func stepName(i int, box string) string { return "s" + strconv.Itoa(i) + "_" + box }

// postedAutomation reads an automation's form from a post.
func postedAutomation(v url.Values) automationForm {
	t := func(name string) string { return strings.TrimSpace(v.Get(name)) }
	f := automationForm{Name: t("name"), Enabled: v.Get("enabled") != "", Trigger: t("trigger"), Values: map[string]string{},
		SegmentID: t("segment_id"), Period: t("period_days"), Steps: make([]stepForm, maxSteps)}
	for _, n := range triggerDays {
		f.Values[n+"_days"] = t(n + "_days")
	}
	for _, n := range []string{"visit_count", "level_id", "lost_level_id", "card_id"} {
		f.Values[n] = t(n)
	}
	last := -1
	for i := range f.Steps {
		s := func(box string) string { return strings.TrimSpace(v.Get(stepName(i, box))) }
		f.Steps[i] = stepForm{Type: s("type"), Days: s("days"), Points: s("points"), OfferID: s("offer_id"), Tag: s("tag"),
			Channels: v[stepName(i, "channels")], Subject: s("subject"), SMSBody: s("sms_body"),
			EmailBody: strings.TrimSpace(strings.ReplaceAll(v.Get(stepName(i, "email_body")), "\r\n", "\n"))}
		if f.Steps[i].Type != "" {
			last = i
		}
	}
	shown, _ := strconv.Atoi(v.Get("shown"))
	f.Shown = min(max(shown, last+1, 1), maxSteps)
	return f
}

// automationFormOf is a saved automation's form, with a free step after
// its own.
func automationFormOf(a loyalty.Automation) automationForm {
	f := automationForm{Name: a.Name, Enabled: a.Enabled, Trigger: a.Trigger.Type, Values: map[string]string{},
		Steps: make([]stepForm, maxSteps)}
	if slices.Contains(triggerDays, a.Trigger.Type) {
		f.Values[a.Trigger.Type+"_days"] = strconv.Itoa(a.Trigger.Days)
	}
	if a.Trigger.Count > 0 {
		f.Values["visit_count"] = strconv.Itoa(a.Trigger.Count)
	}
	if a.Trigger.LevelID > 0 {
		f.Values[levelBox(a.Trigger.Type)] = strconv.FormatInt(a.Trigger.LevelID, 10)
	}
	if a.Trigger.CardID > 0 {
		f.Values["card_id"] = strconv.FormatInt(a.Trigger.CardID, 10)
	}
	if a.SegmentID != 0 {
		f.SegmentID = strconv.FormatInt(a.SegmentID, 10)
	}
	if a.PeriodDays > 0 {
		f.Period = strconv.Itoa(a.PeriodDays)
	}
	for i, x := range a.Actions {
		if i >= maxSteps {
			break
		}
		s := stepForm{Type: x.Type, Tag: x.Tag, Channels: x.Channels, Subject: x.Subject, EmailBody: x.EmailBody, SMSBody: x.SMSBody}
		if x.Days > 0 {
			s.Days = strconv.Itoa(x.Days)
		}
		if x.Points > 0 {
			s.Points = strconv.FormatInt(x.Points, 10)
		}
		if x.OfferID > 0 {
			s.OfferID = strconv.FormatInt(x.OfferID, 10)
		}
		f.Steps[i] = s
	}
	f.Shown = min(len(a.Actions)+1, maxSteps)
	return f
}

// input is the form's AutomationInput, the boxes it cannot read with
// what is wrong with each, and the form's step of each action (the
// domain numbers the actions without the empty steps).
func (f automationForm) input() (loyalty.AutomationInput, map[string][]string, []int) {
	bad := map[string][]string{}
	whole := func(box, s, say string) int64 {
		if s == "" {
			return 0
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < -1<<31 || n > 1<<31 {
			bad[box] = append(bad[box], say)
			return 0
		}
		return n
	}
	in := loyalty.AutomationInput{Name: loyalty.Some(f.Name), Enabled: loyalty.Some(f.Enabled)}
	in.Trigger = loyalty.Opt[loyalty.AutomationTrigger]{Set: true, Null: true}
	if f.Trigger != "" {
		t := loyalty.AutomationTrigger{Type: f.Trigger}
		if slices.Contains(triggerDays, f.Trigger) {
			box := f.Trigger + "_days"
			t.Days = int(whole(box, f.Values[box], "Enter a number of days, such as 30."))
			if f.Values[box] == "" && f.Trigger != loyalty.TriggerBirthday {
				bad[box] = append(bad[box], "Enter the number of days.")
			}
		}
		switch f.Trigger {
		case loyalty.TriggerNthVisit:
			t.Count = int(whole("visit_count", f.Values["visit_count"], "Enter the visit’s number, such as 10."))
		case loyalty.TriggerTierReached, loyalty.TriggerTierLost:
			box := levelBox(f.Trigger)
			t.LevelID = whole(box, f.Values[box], "Choose the level from the list.")
		case loyalty.TriggerCardCompleted:
			t.CardID = whole("card_id", f.Values["card_id"], "Choose the punch card from the list.")
		}
		in.Trigger = loyalty.Some(t)
	}
	in.SegmentID = loyalty.Opt[int64]{Set: true, Null: true}
	if f.SegmentID != "" {
		in.SegmentID = loyalty.Some(whole("segment_id", f.SegmentID, "Choose a segment from the list."))
	}
	in.PeriodDays = loyalty.Some(int(whole("period_days", f.Period, "Enter a number of days, such as 365, or leave it empty.")))
	var acts []loyalty.AutomationAction
	var rows []int
	for i, s := range f.Steps {
		if s.Type == "" {
			continue
		}
		x := loyalty.AutomationAction{Type: s.Type}
		switch s.Type {
		case loyalty.ActionWait:
			x.Days = int(whole(stepName(i, "days"), s.Days, "Enter a number of days, such as 7."))
		case loyalty.ActionGivePoints:
			x.Points = whole(stepName(i, "points"), s.Points, "Enter the points to give, such as 50.")
		case loyalty.ActionCoupon:
			x.OfferID = whole(stepName(i, "offer_id"), s.OfferID, "Choose the offer from the list.")
		case loyalty.ActionAddTag:
			x.Tag = s.Tag
		case loyalty.ActionSend:
			x.Channels = append([]string{}, s.Channels...)
			if len(x.Channels) == 0 {
				bad[stepName(i, "channels")] = []string{"Choose at least one way to reach them."}
			}
			x.Subject, x.EmailBody, x.SMSBody = s.Subject, s.EmailBody, s.SMSBody
		}
		acts, rows = append(acts, x), append(rows, i)
	}
	in.Actions = loyalty.Some(acts)
	return in, bad, rows
}

// levelBox is the form's box of the level a tier trigger names: each
// trigger shows its own.
func levelBox(trigger string) string {
	if trigger == loyalty.TriggerTierLost {
		return "lost_level_id"
	}
	return "level_id"
}

// automationSaid replaces the domain's words for a refusal the form says
// otherwise, by the box's kind.
var automationSaid = map[string]map[string]string{
	"name":          {"required": "Give the automation a name, such as “We miss you”."},
	"trigger":       {"": "Choose when it runs."},
	"level_id":      {"": "Choose the tier level that fires it."},
	"lost_level_id": {"": "Choose the tier level whose loss fires it."},
	"card_id":       {"": "Choose the punch card that fires it."},
	"steps":         {"": "Add at least one step, and at most 10."},
	"type":          {"": "Choose what the step does."},
	"offer_id":      {"": "Choose the offer whose coupon is given."},
	"subject":       {"needs": "An e-mail needs a subject."},
	"email_body":    {"needs": "An e-mail needs a message."},
	"sms_body":      {"needs": "A text message or an app notification needs its text."},
}

// automationWords name the domain's words in its other messages.
var automationWords = strings.NewReplacer("The trigger's days", "The number of days", "A birthday trigger's days", "The days before",
	"The trigger's count", "The visit’s number", "another action", "another step", "The period_days", "The number of days",
	"The tag", "The tag")

// automationRefusal puts the domain's refusal of an automation on the
// form's boxes, in the form's words; rows are the form's step of each
// action.
func automationRefusal(fields map[string][]string, trigger string, rows []int) map[string][]string {
	out := map[string][]string{}
	for name, msgs := range fields {
		box, kind := name, name
		switch {
		case name == "trigger" || name == "trigger.type":
			box, kind = "trigger", "trigger"
		case name == "trigger.days":
			box, kind = trigger+"_days", "days"
		case name == "trigger.count":
			box, kind = "visit_count", "count"
		case name == "trigger.level_id":
			box = levelBox(trigger)
			kind = box
		case name == "trigger.card_id":
			box, kind = "card_id", "card_id"
		case name == "actions":
			box, kind = "steps", "steps"
		case strings.HasPrefix(name, "actions."):
			parts := strings.SplitN(strings.TrimPrefix(name, "actions."), ".", 2)
			n, _ := strconv.Atoi(parts[0])
			row := n
			if n >= 0 && n < len(rows) {
				row = rows[n]
			}
			box, kind = "s"+strconv.Itoa(row), "step"
			if len(parts) == 2 {
				box, kind = stepName(row, parts[1]), parts[1]
			}
		}
		for _, m := range msgs {
			said := ""
			if tok := mergeToken.FindString(m); tok != "" && strings.HasPrefix(m, "Unknown merge field") {
				said = tok + " is not a personal field: write {{first_name}}, {{points}}, {{tier}} or {{business_name}}."
			}
			for key, s := range automationSaid[kind] {
				if said == "" && strings.Contains(m, key) {
					said = s
				}
			}
			if said == "" {
				said = automationWords.Replace(m)
			}
			if !slices.Contains(out[box], said) {
				out[box] = append(out[box], said)
			}
		}
	}
	return out
}
