package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/format"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// auditGroup is a heading of the action filter and the actions under it,
// each with the words the page uses for it.
type auditGroup struct {
	Name    string
	Actions []option
}

// auditGroups are every action of the log by the part of the console (or
// the API) they come from; the page shows an action by its label, never
// its key.
var auditGroups = []auditGroup{
	{"Customers", []option{
		{loyalty.AuditCustomerCreated, "Added a customer"},
		{loyalty.AuditCustomerUpdated, "Edited a customer's details"},
		{loyalty.AuditCustomerEnabled, "Enabled a customer"},
		{loyalty.AuditCustomerDisabled, "Disabled a customer"},
		{loyalty.AuditCustomerDeleted, "Deleted a customer"},
		{loyalty.AuditCustomerErased, "Erased a customer's data"},
		{loyalty.AuditConsentChanged, "Changed a customer's consent"},
		{loyalty.AuditCustomerWelcomed, "Resent a welcome message"},
		{loyalty.AuditPointsAdjusted, "Adjusted points"},
		{loyalty.AuditTransactionCancel, "Cancelled a transaction"},
		{loyalty.AuditTransactionDetails, "Edited order references"},
		{loyalty.AuditCouponIssued, "Issued a coupon"},
		{loyalty.AuditCouponGifted, "Gave a coupon as a gift"},
	}},
	{"Counter", []option{
		{loyalty.AuditSaleRecorded, "Recorded a sale"},
		{loyalty.AuditRewardRedeemed, "Redeemed a reward"},
		{loyalty.AuditCouponClaimed, "Claimed a coupon"},
		{loyalty.AuditGiftcardSold, "Sold gift-card credit"},
		{loyalty.AuditGiftcardPaid, "Took a gift-card payment"},
		{loyalty.AuditVoucherHandedOver, "Handed over a reward"},
	}},
	{"Program", []option{
		{loyalty.AuditRulesUpdated, "Changed the earning rules"},
		{loyalty.AuditProgramCreated, "Added to the program"},
		{loyalty.AuditProgramUpdated, "Changed the program"},
		{loyalty.AuditProgramDeleted, "Deleted from the program"},
	}},
	{"Imports and exports", []option{
		{loyalty.AuditImportUploaded, "Uploaded a file to import"},
		{loyalty.AuditImportMapped, "Matched an import's columns"},
		{loyalty.AuditImportStarted, "Started an import"},
		{loyalty.AuditCustomersExported, "Downloaded the customers"},
		{loyalty.AuditLedgerExported, "Downloaded the ledger"},
	}},
	{"Team and settings", []option{
		{loyalty.AuditProfileUpdated, "Updated the business profile"},
		{loyalty.AuditStaffInvited, "Invited a team member"},
		{loyalty.AuditStaffReinvited, "Sent a new invitation"},
		{loyalty.AuditStaffJoined, "Joined the team"},
		{loyalty.AuditStaffRole, "Changed a role"},
		{loyalty.AuditStaffRemoved, "Removed a team member"},
		{loyalty.AuditPasswordChanged, "Changed their password"},
		{loyalty.AuditPasswordReset, "Reset their password by e-mail"},
	}},
	{"Apps and webhooks", []option{
		{loyalty.AuditKeyRotated, "Rotated the Application Key"},
		{loyalty.AuditAppRevoked, "Revoked an app's access"},
		{loyalty.AuditWebhookCreated, "Added a webhook"},
		{loyalty.AuditWebhookUpdated, "Changed a webhook"},
		{loyalty.AuditWebhookDeleted, "Deleted a webhook"},
		{loyalty.AuditWebhookRotated, "Rotated a webhook secret"},
	}},
}

// auditLabels are the words of each action.
var auditLabels = func() map[string]string {
	m := map[string]string{}
	for _, g := range auditGroups {
		for _, o := range g.Actions {
			m[o.Value] = o.Label
		}
	}
	return m
}()

// auditFields are the words of the settings an entry records; another
// is written from its key ("brand_color": "Brand color").
var auditFields = map[string]string{
	"offer": "Offer", "reward": "Reward", "giftcard": "Gift card", "coupon": "Coupon", "voucher": "Voucher",
	"transaction": "Transaction", "points": "Points", "reason": "Reason", "quantity": "Quantity", "items": "Items",
	"amount": "Amount", "role": "Role", "type": "Kind of file", "email": "E-mail", "phone": "Phone",
	"time_zone": "Time zone", "reward_ratio": "Points per unit spent", "reward_milestone_amount": "Spend per reward step",
	"round_up_points": "Round points up", "welcome_points": "Welcome points", "points_per_visit": "Points per visit",
	"redemption_ratio": "Points per redemption", "redemption_amount": "Redemption value", "earning_exclude": "Not earning points",
	"external_order_id": "Order id",
}

// fieldLabel is the words of a setting.
func fieldLabel(k string) string {
	if l, ok := auditFields[k]; ok {
		return l
	}
	k = strings.ReplaceAll(k, "_", " ")
	if k == "" {
		return k
	}
	return strings.ToUpper(k[:1]) + k[1:]
}

// auditPage is the body of the audit template.
type auditPage struct {
	Entries  []auditRow
	Older    string // the link to the next, older page
	Newest   string // the link to the newest page, on an older one
	TimeZone string
	Filter   auditFilterForm
	People   []option
	Groups   []auditGroup
	Filtered bool
}

// auditFilterForm is the filter as the form shows it.
type auditFilterForm struct{ Who, Action, From, To, Error string }

// auditRow is one entry as the page shows it.
type auditRow struct {
	loyalty.AuditEntry
	When    string
	ISO     string
	Label   string
	Who     string
	WhoSub  string
	Changes []auditChange
}

// auditChange is one setting's value before and after; Noted when the
// entry records a value that was not changed from another (the offer of
// a coupon issued, the reason given).
type auditChange struct {
	Field, Before, After string
	Noted                bool
}

func (s *Server) auditLog(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	q := r.URL.Query()
	loc := time.UTC
	p := auditPage{TimeZone: "UTC", Groups: auditGroups,
		Filter: auditFilterForm{Who: q.Get("who"), Action: q.Get("action"), From: q.Get("from"), To: q.Get("to")}}
	if prof, err := s.Console.Profiles.Profile(r.Context(), a.BusinessID); err != nil {
		return err
	} else if prof.TimeZone != "" {
		loc, p.TimeZone = prof.Location(), prof.Location().String()
	}
	f := loyalty.AuditFilter{Actor: p.Filter.Who}
	f.Before, _ = strconv.ParseInt(q.Get("before"), 10, 64)
	if _, ok := auditLabels[p.Filter.Action]; ok {
		f.Actions = []string{p.Filter.Action}
	} else {
		p.Filter.Action = ""
	}
	// Dates are days of the business's time zone, the end day included.
	if d, err := time.ParseInLocation(time.DateOnly, p.Filter.From, loc); err == nil {
		f.From = d
	} else {
		p.Filter.From = ""
	}
	if d, err := time.ParseInLocation(time.DateOnly, p.Filter.To, loc); err == nil {
		f.To = d.AddDate(0, 0, 1)
	} else {
		p.Filter.To = ""
	}
	p.Filtered = f.Actor != "" || len(f.Actions) > 0 || !f.From.IsZero() || !f.To.IsZero()
	page, err := s.Console.Audit.Page(r.Context(), a, f)
	if e := (*loyalty.Error)(nil); errors.As(err, &e) && e.Code == loyalty.EInvalid {
		p.Filter.Error = strings.Join(e.Fields["to"], " ")
		f.From, f.To, p.Filter.From, p.Filter.To = time.Time{}, time.Time{}, "", ""
		page, err = s.Console.Audit.Page(r.Context(), a, f)
	}
	if err != nil {
		return err
	}
	actors, err := s.Console.Audit.Actors(r.Context(), a)
	if err != nil {
		return err
	}
	for _, ac := range actors {
		label := ac.Name
		if ac.Kind == loyalty.ActorApp {
			label += " (app)"
		}
		p.People = append(p.People, option{ac.Key(), label})
	}
	b, err := s.consoleBusiness(r, a)
	if err != nil {
		return err
	}
	names := &catalogNames{s: s, ctx: r.Context(), b: b, seen: map[string]string{}}
	for _, e := range page.Entries {
		label := auditLabels[e.Action]
		if label == "" {
			label = fieldLabel(strings.ReplaceAll(e.Action, ".", " "))
		}
		row := auditRow{AuditEntry: e, Label: label, When: e.CreatedAt.In(loc).Format("Jan 2, 2006 15:04"),
			ISO: e.CreatedAt.UTC().Format(time.RFC3339), Who: e.ActorEmail, WhoSub: e.ActorRole}
		switch e.ActorKind {
		case loyalty.ActorApp:
			row.WhoSub = "App, through the API"
		case "api": // entries written before apps were named
			row.Who, row.WhoSub = "An app", "through the API"
		}
		row.Changes = changes(e.Before, e.After)
		for i, c := range row.Changes {
			row.Changes[i].Field = fieldLabel(c.Field)
			if loyalty.AuditAmount(c.Field) {
				row.Changes[i].Before, row.Changes[i].After = amountText(b, e.Before, c.Before), amountText(b, e.After, c.After)
			} else {
				row.Changes[i].Before, row.Changes[i].After = names.of(c.Field, c.Before), names.of(c.Field, c.After)
			}
		}
		p.Entries = append(p.Entries, row)
	}
	keep := url.Values{}
	for k, v := range map[string]string{"who": p.Filter.Who, "action": p.Filter.Action, "from": p.Filter.From, "to": p.Filter.To} {
		if v != "" {
			keep.Set(k, v)
		}
	}
	if f.Before > 0 {
		p.Newest = "/business/audit"
		if len(keep) > 0 {
			p.Newest += "?" + keep.Encode()
		}
	}
	if page.Older > 0 {
		keep.Set("before", strconv.FormatInt(page.Older, 10))
		p.Older = "/business/audit?" + keep.Encode()
	}
	v := s.consoleView(r, a, "Audit log")
	v.Data = p
	s.render(w, r, http.StatusOK, "audit", v)
	return nil
}

// catalogNames writes the offers, rewards and gift cards an entry names
// by id with their titles, each read once per page.
type catalogNames struct {
	s    *Server
	ctx  context.Context
	b    loyalty.Business
	seen map[string]string
}

// of is the value of the setting field as the page shows it: "Free
// pastry (#3)" for an offer, reward or gift card still in the catalogue,
// "#12" for a transaction, the value itself otherwise.
func (n *catalogNames) of(field, v string) string {
	if v == "" {
		return v
	}
	switch field {
	case "transaction", "coupon":
		return "#" + v
	case "offer", "reward", "giftcard":
	default:
		return v
	}
	if _, err := strconv.ParseInt(v, 10, 64); err != nil {
		return v // a title, as the counter records a voucher's reward
	}
	key := field + ":" + v
	if t, ok := n.seen[key]; ok {
		return t
	}
	title, svc := "", n.s.Program.Services
	switch field {
	case "offer":
		if o, err := svc.Offers.Get(n.ctx, n.b, v); err == nil {
			title = o.Title
		}
	case "reward":
		if r, err := svc.Rewards.Get(n.ctx, n.b, v); err == nil {
			title = r.Title
		}
	case "giftcard":
		if g, err := svc.Giftcards.Get(n.ctx, n.b, v); err == nil {
			title = g.Title
		}
	}
	out := "#" + v
	if title != "" {
		out = title + " (#" + v + ")"
	}
	n.seen[key] = out
	return out
}

// amountText writes an amount an audit entry recorded in the business's
// currency, or in the one the entry's settings name; a value that is not
// an amount stays as recorded.
func amountText(b loyalty.Business, settings map[string]string, v string) string {
	m, err := loyalty.ParseMoney(v)
	if err != nil {
		return v
	}
	if c, ok := loyalty.NormalizeCurrency(settings["currency"]); ok {
		b.Currency = c
	}
	return format.Money(m, b)
}

// changes lists the settings an entry changed, in name order.
func changes(before, after map[string]string) []auditChange {
	var names []string
	for k := range before {
		names = append(names, k)
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	var out []auditChange
	for _, n := range names {
		if before[n] != after[n] || before == nil || after == nil {
			out = append(out, auditChange{Field: n, Before: before[n], After: after[n], Noted: before == nil})
		}
	}
	return out
}
