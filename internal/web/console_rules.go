package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// The points-per-spend page: the program's base earning rule and the life
// of a point, saved as PATCH /rules saves them.

// rulesFields are the earning rules' form.
var rulesFields = []setupField{
	{Name: "reward_ratio", Label: "Points", Kind: kindInt, Unit: "points", Row: "a", Hint: "Earned for each step of spend below."},
	{Name: "reward_milestone_amount", Label: "For each", Kind: kindMoney, Unit: unitCurrency, Row: "a", Hint: "Spent, such as 1.00."},
	{Name: "round_up_points", Label: "Round up", Kind: kindBool, Hint: "A partial step earns its share, rounded up."},
	{Name: "welcome_points", Label: "Welcome points", Kind: kindInt, Unit: "points", Hint: "Given to each new customer."},
	{Name: "visits.points_per_visit", Label: "Points per visit", Kind: kindInt, Unit: "points", Hint: "For a business that rewards visits."},
	{Name: "redemption_ratio", Label: "Redemption value", Kind: kindInt, Unit: "points", Row: "b", Clear: true,
		Hint: "What your points are worth: this many points…"},
	{Name: "redemption_amount", Label: "Are worth", Kind: kindMoney, Unit: unitCurrency, Row: "b", Clear: true,
		Hint: "…this amount of your currency. The dashboard's liability counts points at it; both empty: none."},
	{Name: "pending_days", Label: "Points of a sale are usable after", Kind: kindInt, Unit: "days", Section: "The life of a point",
		Lead: "For points earned from now on: those already earned keep their dates. A tier level's keeping or loss is set on your tier program.",
		Hint: "A return within them takes the points back before they are spent. 0: at once."},
	{Name: "expire_count", Label: "Points expire after", Kind: kindInt, Row: "x",
		Hint: "Counted from the day they are earned, to the end of that day or month. Empty: never."},
	{Name: "expire_unit", Label: "In", Kind: kindSelect, Row: "x", Options: []option{{loyalty.ExpireMonths, "months"}, {loyalty.ExpireDays, "days"}}},
	{Name: "expiry_notice_days", Label: "Tell customers before they expire", Kind: kindInt, Unit: "days",
		Hint: "An e-mail this many days before their points expire. 0: no notice."},
}

// policyBody adds to a points-per-spend form's body the points' expiry as
// the API takes it ({"months": N}, {"days": N}, or null for never); a
// count that is not a whole number is named in bad.
func policyBody(body []byte, f url.Values, bad map[string][]string) []byte {
	var m map[string]any
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	delete(m, "expire_count")
	delete(m, "expire_unit")
	m["points_expire_after"] = nil
	if raw := strings.TrimSpace(f.Get("expire_count")); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil {
			bad["expire_count"] = append(bad["expire_count"], "Enter a whole number.")
		}
		unit := loyalty.ExpireMonths
		if f.Get("expire_unit") == loyalty.ExpireDays {
			unit = loyalty.ExpireDays
		}
		m["points_expire_after"] = map[string]int{unit: n}
	}
	out, _ := json.Marshal(m)
	return out
}

func (s *Server) rulesForm(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	b, err := s.Program.Business(r.Context(), a)
	if err != nil {
		return err
	}
	rules, err := s.Program.Services.Transactions.Rules(r.Context(), b)
	if err != nil {
		return err
	}
	form := map[string]string{"reward_ratio": intText(rules.RewardRatio), "reward_milestone_amount": rules.RewardMilestoneAmount.String(),
		"round_up_points": boolText(rules.RoundUpPoints), "welcome_points": intText(rules.WelcomePoints),
		"visits.points_per_visit": intText(rules.PointsPerVisit)}
	if rules.Redemption.Redeeming() {
		form["redemption_ratio"], form["redemption_amount"] = intText(rules.Redemption.Points), rules.Redemption.Value.String()
	}
	form["pending_days"], form["expiry_notice_days"] = strconv.Itoa(rules.PendingDays), strconv.Itoa(rules.ExpiryNoticeDays)
	form["expire_unit"] = loyalty.ExpireMonths
	if x := rules.PointsExpireAfter; !x.Never() {
		form["expire_count"], form["expire_unit"] = strconv.Itoa(x.Count), x.Unit
	}
	return s.renderRules(w, r, a, http.StatusOK, form, nil, "")
}

func (s *Server) renderRules(w http.ResponseWriter, r *http.Request, a loyalty.Actor, status int, form map[string]string,
	errs map[string][]string, msg string) error {
	b, err := s.Program.Business(r.Context(), a)
	if err != nil {
		return err
	}
	v := s.consoleView(r, a, "Points: earning and expiry")
	v.Error = msg
	v.Data = setupFormPage{Heading: "Points: earning and expiry", Action: "/business/program/rules", Back: "/business/program",
		Submit: "Save rules", Rows: drawFields(rulesFields, form, nil, errs, nil, b.CurrencyCode())}
	s.render(w, r, status, "setup_form", v)
	return nil
}

func (s *Server) rulesSave(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	f := r.PostForm
	body, bad := formBody(rulesFields, f, time.UTC)
	body = policyBody(body, f, bad)
	if len(bad) == 0 {
		in, err := decodeAs[loyalty.RulesInput](body)
		if err != nil {
			return err
		}
		_, err = s.Program.SaveRules(r.Context(), a, in)
		if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
			bad = map[string][]string{}
			for name, msgs := range e.Fields {
				if strings.HasPrefix(name, "points_expire_after") {
					name = "expire_count"
				}
				bad[name] = append(bad[name], msgs...)
			}
		} else if err != nil {
			return err
		}
	}
	if len(bad) > 0 {
		form := map[string]string{}
		for key := range f {
			form[key] = f.Get(key)
		}
		return s.renderRules(w, r, a, http.StatusUnprocessableEntity, form, bad, fieldsMessage(bad, rulesFields))
	}
	redirect(w, "/business/program/rules?notice=rules_saved")
	return nil
}
