package web

import (
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/loyalty/loyalty/internal/format"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// auditLabels are the words the audit page uses for actions.
var auditLabels = map[string]string{
	loyalty.AuditKeyRotated:      "Rotated the Application Key",
	loyalty.AuditAppRevoked:      "Revoked an app's access",
	loyalty.AuditStaffInvited:    "Invited a team member",
	loyalty.AuditStaffReinvited:  "Sent a new invitation",
	loyalty.AuditStaffJoined:     "Joined the team",
	loyalty.AuditStaffRole:       "Changed a role",
	loyalty.AuditStaffRemoved:    "Removed a team member",
	loyalty.AuditPasswordChanged: "Changed their password",
	loyalty.AuditPasswordReset:   "Reset their password by e-mail",
	loyalty.AuditProfileUpdated:  "Updated the business profile",
	// The customer pages and the counter.
	loyalty.AuditCustomerCreated:    "Added a customer",
	loyalty.AuditCustomerUpdated:    "Edited a customer's details",
	loyalty.AuditCustomerEnabled:    "Enabled a customer",
	loyalty.AuditCustomerDisabled:   "Disabled a customer",
	loyalty.AuditCustomerDeleted:    "Deleted a customer",
	loyalty.AuditCustomerWelcomed:   "Resent a customer's welcome message",
	loyalty.AuditPointsAdjusted:     "Adjusted points",
	loyalty.AuditTransactionCancel:  "Cancelled a transaction",
	loyalty.AuditCouponIssued:       "Issued a coupon",
	loyalty.AuditCouponGifted:       "Gave a coupon as a gift",
	loyalty.AuditTransactionDetails: "Edited a transaction's order references",
	loyalty.AuditSaleRecorded:       "Recorded a sale",
	loyalty.AuditRewardRedeemed:     "Redeemed a reward",
	loyalty.AuditCouponClaimed:      "Claimed a coupon",
	loyalty.AuditGiftcardSold:       "Sold gift-card credit",
	loyalty.AuditGiftcardPaid:       "Took a gift-card payment",
	loyalty.AuditRulesUpdated:       "Changed the earning rules",
	loyalty.AuditProgramCreated:     "Added to the program",
	loyalty.AuditProgramUpdated:     "Changed the program",
	loyalty.AuditProgramDeleted:     "Deleted from the program",
}

// auditPage is the body of the audit template.
type auditPage struct {
	Entries  []auditRow
	Older    string // the link to the next, older page
	Newest   bool   // this is not the newest page
	TimeZone string
}

// auditRow is one entry as the page shows it.
type auditRow struct {
	loyalty.AuditEntry
	When    string
	ISO     string
	Label   string
	Changes []auditChange
}

// auditChange is one setting's value before and after.
type auditChange struct{ Field, Before, After string }

func (s *Server) auditLog(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	before, _ := strconv.ParseInt(r.URL.Query().Get("before"), 10, 64)
	page, err := s.Console.Audit.Page(r.Context(), a, before)
	if err != nil {
		return err
	}
	loc := time.UTC
	p := auditPage{Newest: before > 0, TimeZone: "UTC"}
	if prof, err := s.Console.Profiles.Profile(r.Context(), a.BusinessID); err != nil {
		return err
	} else if prof.TimeZone != "" {
		loc, p.TimeZone = prof.Location(), prof.Location().String()
	}
	b, err := s.consoleBusiness(r, a)
	if err != nil {
		return err
	}
	for _, e := range page.Entries {
		label := auditLabels[e.Action]
		if label == "" {
			label = e.Action
		}
		row := auditRow{AuditEntry: e, Label: label, When: e.CreatedAt.In(loc).Format("Jan 2, 2006 15:04"),
			ISO: e.CreatedAt.UTC().Format(time.RFC3339)}
		row.Changes = changes(e.Before, e.After)
		for i, c := range row.Changes {
			if loyalty.AuditAmount(c.Field) {
				row.Changes[i].Before, row.Changes[i].After = amountText(b, e.Before, c.Before), amountText(b, e.After, c.After)
			}
		}
		p.Entries = append(p.Entries, row)
	}
	if page.Older > 0 {
		p.Older = "/business/audit?before=" + strconv.FormatInt(page.Older, 10)
	}
	v := s.consoleView(r, a, "Audit log")
	v.Data = p
	s.render(w, r, http.StatusOK, "audit", v)
	return nil
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
			out = append(out, auditChange{Field: n, Before: before[n], After: after[n]})
		}
	}
	return out
}
