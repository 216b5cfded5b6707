package loyalty

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// An automation runs by itself: when its trigger fires for a customer
// (a birthday coming, N days since joining, no visit for N days, the Nth
// visit, the first purchase), and the customer is in its segment if it
// names one, its actions run in order — give points, send a message, add
// a tag — with waits between them. It fires at most once per customer
// per occurrence of its trigger (this year's birthday, this lapse since
// the last visit), and not again within PeriodDays of its last run for
// the customer. The runner scans the customers in bounded batches on the
// business's clock and records each run before its first action, in the
// same transaction, so a restart never runs anything twice.

// stateTrigger reports whether a trigger is a state a customer may be in
// already when the automation is made, rather than a moment.
func (t AutomationTrigger) stateTrigger() bool {
	return t.Type == TriggerTierReached || t.Type == TriggerTierLost || t.Type == TriggerCardCompleted
}

// Automation triggers.
const (
	TriggerBirthday      = "birthday"        // the birthday is Days days away (0: today)
	TriggerJoined        = "joined"          // joined Days days ago
	TriggerNoVisit       = "no_visit"        // no visit for Days days (a customer who joined that long ago and never came too)
	TriggerNthVisit      = "nth_visit"       // the Count-th visit
	TriggerFirstPurchase = "first_purchase"  // the first visit
	TriggerTierReached   = "tier_reached"    // the tier program announced level LevelID
	TriggerTierLost      = "tier_lost"       // the tier program announced a level below LevelID, from LevelID or above (each loss)
	TriggerExpiring      = "points_expiring" // points expire within Days days
	TriggerCardCompleted = "card_completed"  // punch card CardID was completed (each completion)
)

// Automation actions.
const (
	ActionWait       = "wait"        // wait Days days before the next action
	ActionGivePoints = "give_points" // Points, by an adjustment
	ActionSend       = "send_message"
	ActionAddTag     = "add_tag"
	ActionCoupon     = "issue_coupon" // a coupon of OfferID as a gift (its points not taken)
)

// Automation is one of a business's automations.
type Automation struct {
	ID         int64
	BusinessID string
	Name       string
	Enabled    bool
	Trigger    AutomationTrigger
	SegmentID  int64 // 0: every customer
	Actions    []AutomationAction
	PeriodDays int // not again for a customer within this many days of their last run (0: only the trigger's own once)
	// The scan: when the pass under way began (on the business's clock)
	// and the last customer id it reached ("" at its start).
	PassStarted time.Time
	PassAfter   string
	// Baselined: the customers already in the trigger's state when it was
	// made (a tier level held, a card's completions) are recorded, so only
	// what happens after fires it (triggers that are a state only).
	Baselined bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// AutomationTrigger is when an automation fires.
type AutomationTrigger struct {
	Type    string `json:"type"`
	Days    int    `json:"days,omitempty"`
	Count   int    `json:"count,omitempty"`
	LevelID int64  `json:"level_id,omitempty"`
	CardID  int64  `json:"card_id,omitempty"`
}

// AutomationAction is one step of an automation.
type AutomationAction struct {
	Type      string   `json:"type"`
	Days      int      `json:"days,omitempty"`
	Points    int64    `json:"points,omitempty"`
	OfferID   int64    `json:"offer_id,omitempty"`
	Tag       string   `json:"tag,omitempty"`
	Channels  []string `json:"channels,omitempty"`
	Subject   string   `json:"subject,omitempty"`
	EmailBody string   `json:"email_body,omitempty"`
	SMSBody   string   `json:"sms_body,omitempty"`
}

// AutomationInput is the body of an automation create or update.
type AutomationInput struct {
	Name       Opt[string]             `json:"name"`
	Enabled    Opt[bool]               `json:"enabled"`
	Trigger    Opt[AutomationTrigger]  `json:"trigger"`
	SegmentID  Opt[int64]              `json:"segment_id"`
	Actions    Opt[[]AutomationAction] `json:"actions"`
	PeriodDays Opt[int]                `json:"period_days"`
}

const (
	maxAutomationActions = 10
	maxAutomationDays    = 3660
)

// apply validates in and merges it into a (a create when a.ID is 0).
func (in AutomationInput) apply(a *Automation, segmentOK func(int64) bool, offerBad func(int64) string) error {
	v := Validation{}
	create := a.ID == 0
	if in.Name.Set || create {
		name, _ := in.Name.Value()
		switch name = strings.TrimSpace(name); {
		case name == "":
			v.Add("name", "The name field is required.")
		case len([]rune(name)) > maxCampaignName:
			v.Add("name", "The name may not be greater than "+strconv.Itoa(maxCampaignName)+" characters.")
		default:
			a.Name = name
		}
	}
	if in.Enabled.Set || create {
		on, ok := in.Enabled.Value()
		a.Enabled = on || !ok
	}
	if in.Trigger.Set || create {
		t, ok := in.Trigger.Value()
		if !ok {
			v.Add("trigger", "The trigger field is required: {\"type\": ...}.")
		} else {
			t.check(v)
			a.Trigger = t
		}
	}
	if in.SegmentID.Set {
		id, ok := in.SegmentID.Value()
		switch {
		case !ok:
			a.SegmentID = 0
		case !segmentOK(id):
			v.Add("segment_id", "The segment_id must be the id of one of the business's segments.")
		default:
			a.SegmentID = id
		}
	}
	if in.Actions.Set || create {
		acts, _ := in.Actions.Value()
		checkActions(v, acts, offerBad)
		a.Actions = acts
	}
	if in.PeriodDays.Set || create {
		n, _ := in.PeriodDays.Value()
		if n < 0 || n > maxAutomationDays {
			v.Add("period_days", "The period_days must be between 0 and "+strconv.Itoa(maxAutomationDays)+".")
		}
		a.PeriodDays = n
	}
	return v.Err()
}

func (t AutomationTrigger) check(v Validation) {
	days := func(lo int) {
		if t.Days < lo || t.Days > maxAutomationDays {
			v.Add("trigger.days", "The trigger's days must be between "+strconv.Itoa(lo)+" and "+strconv.Itoa(maxAutomationDays)+".")
		}
	}
	switch t.Type {
	case TriggerBirthday:
		if t.Days < 0 || t.Days > 60 {
			v.Add("trigger.days", "A birthday trigger's days must be between 0 (on the day) and 60.")
		}
	case TriggerJoined:
		days(0)
	case TriggerNoVisit:
		days(1)
	case TriggerNthVisit:
		if t.Count < 1 || t.Count > 100_000 {
			v.Add("trigger.count", "The trigger's count must be between 1 and 100000.")
		}
	case TriggerFirstPurchase:
	case TriggerExpiring:
		days(1)
	case TriggerTierReached, TriggerTierLost:
		if t.LevelID <= 0 {
			v.Add("trigger.level_id", "The trigger's level_id is required: a level of the business's tier program.")
		}
	case TriggerCardCompleted:
		if t.CardID <= 0 {
			v.Add("trigger.card_id", "The trigger's card_id is required: one of the business's punch cards.")
		}
	default:
		v.Add("trigger.type", "The trigger type must be birthday, joined, no_visit, nth_visit, first_purchase, tier_reached, tier_lost, points_expiring or card_completed.")
	}
}

func checkActions(v Validation, acts []AutomationAction, offerBad func(int64) string) {
	if len(acts) == 0 || len(acts) > maxAutomationActions {
		v.Add("actions", "Give 1 to "+strconv.Itoa(maxAutomationActions)+" actions.")
		return
	}
	for i, a := range acts {
		f := "actions." + strconv.Itoa(i)
		switch a.Type {
		case ActionWait:
			if a.Days < 1 || a.Days > 365 {
				v.Add(f+".days", "A wait is 1 to 365 days.")
			}
			if i == len(acts)-1 {
				v.Add(f, "A wait must come before another action.")
			}
		case ActionGivePoints:
			if a.Points < 1 || a.Points > maxGiftPoints {
				v.Add(f+".points", "The points must be between 1 and "+strconv.Itoa(maxGiftPoints)+".")
			}
		case ActionCoupon:
			if why := offerBad(a.OfferID); why != "" {
				v.Add(f+".offer_id", why)
			}
		case ActionAddTag:
			if _, ok := normalTag(a.Tag); !ok {
				v.Add(f+".tag", "The tag must be 1 to "+strconv.Itoa(maxSegmentTagLen)+" characters.")
			}
		case ActionSend:
			c := a.message("")
			for _, ch := range c.Channels {
				if ch != CampaignEmail && ch != CampaignSMS && ch != CampaignPush {
					v.Add(f+".channels", "Each channel must be email, sms or push.")
				}
			}
			for name, text := range map[string]string{"subject": a.Subject, "email_body": a.EmailBody, "sms_body": a.SMSBody} {
				if bad := unknownMergeField(text); bad != "" {
					v.Add(f+"."+name, "Unknown merge field {{"+bad+"}}; use "+strings.Join(MergeFields, ", ")+".")
				}
			}
			if err := c.ready(); err != nil {
				for k, msgs := range err.(*Error).Fields {
					for _, m := range msgs {
						v.Add(f+"."+k, m)
					}
				}
			}
		default:
			v.Add(f+".type", "An action is wait, give_points, issue_coupon, send_message or add_tag.")
		}
	}
}

// message is a send action as the campaigns' messages are made.
func (a AutomationAction) message(name string) Campaign {
	chs := a.Channels
	if len(chs) == 0 {
		chs = []string{CampaignEmail}
	}
	return Campaign{Name: name, Channels: chs, Subject: a.Subject, EmailBody: a.EmailBody, SMSBody: a.SMSBody}
}

// Describe is the automation as a sentence a merchant reads: "When a
// member has not visited for 60 days → send “We miss you” → give 50
// points".
func (a Automation) Describe() string { return a.DescribeNamed(AutomationNames{}) }

// AutomationNames are the names of what automations refer to by id:
// tier levels, punch cards and offers.
type AutomationNames struct {
	Levels, Cards, Offers map[int64]string
}

// nameOrNumber is a thing's name in quotes, or its number when it has none.
func nameOrNumber(names map[int64]string, id int64) string {
	if n, ok := names[id]; ok {
		return "“" + n + "”"
	}
	return "#" + strconv.FormatInt(id, 10)
}

// DescribeNamed is Describe naming the levels, punch cards and offers
// the automation refers to: "When a member reaches “Gold” → give a
// coupon of “Free pastry”".
func (a Automation) DescribeNamed(names AutomationNames) string {
	var b strings.Builder
	switch t := a.Trigger; t.Type {
	case TriggerBirthday:
		if t.Days == 0 {
			b.WriteString("On a member's birthday")
		} else {
			b.WriteString("When a member's birthday is " + strconv.Itoa(t.Days) + " days away")
		}
	case TriggerJoined:
		b.WriteString("When a member joined " + strconv.Itoa(t.Days) + " days ago")
	case TriggerNoVisit:
		b.WriteString("When a member has not visited for " + strconv.Itoa(t.Days) + " days")
	case TriggerNthVisit:
		b.WriteString("On a member's visit number " + strconv.Itoa(t.Count))
	case TriggerFirstPurchase:
		b.WriteString("On a member's first purchase")
	case TriggerTierReached:
		b.WriteString("When a member reaches tier level " + nameOrNumber(names.Levels, t.LevelID))
	case TriggerTierLost:
		b.WriteString("When a member loses tier level " + nameOrNumber(names.Levels, t.LevelID))
	case TriggerExpiring:
		b.WriteString("When a member's points expire within " + strconv.Itoa(t.Days) + " days")
	case TriggerCardCompleted:
		b.WriteString("When a member completes punch card " + nameOrNumber(names.Cards, t.CardID))
	}
	for _, x := range a.Actions {
		b.WriteString(" → ")
		switch x.Type {
		case ActionWait:
			b.WriteString("wait " + strconv.Itoa(x.Days) + " days")
		case ActionGivePoints:
			b.WriteString("give " + strconv.FormatInt(x.Points, 10) + " points")
		case ActionAddTag:
			b.WriteString("tag “" + x.Tag + "”")
		case ActionCoupon:
			b.WriteString("give a coupon of offer " + nameOrNumber(names.Offers, x.OfferID))
		case ActionSend:
			subject := x.Subject
			if subject == "" {
				subject = x.SMSBody
			}
			b.WriteString("send “" + subject + "”")
		}
	}
	return b.String()
}

// actionsJSON is how the store keeps the actions.
func (a Automation) ActionsJSON() string {
	b, _ := json.Marshal(a.Actions)
	return string(b)
}
