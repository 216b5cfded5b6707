package browser

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// waitTrue waits until the JavaScript boolean expression js holds (a page
// posted to its own address, where waiting for the page finds the old
// one), and reports whether it did within the step's time.
func (b *tab) waitTrue(js string) bool {
	b.t.Helper()
	deadline := time.Now().Add(stepTimeout)
	for {
		if b.eval(`(() => { try { return !!(` + js + `) } catch (e) { return false } })()`) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestAutomationForm: the owner makes "We miss you" from the dashboard —
// when a member has not visited for 60 days, send an e-mail, then give 50
// points — picking the trigger and each step's kind, the form showing
// only the boxes of what is chosen and Add a step adding one in place;
// the list reads it as a sentence. A second automation gives a coupon
// named by its offer on a first purchase: once a new member buys, the
// list says it ran for them. Turning one off and editing it are a click
// each; refusals are shown beside their box in the form's words (a
// wait as the last step, days that are no number, no name); without
// scripts Add a step posts the form and shows one more; deleting asks
// first. On a desktop and a phone, every page checked.
func TestAutomationForm(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		campaignFixture(t, s, false)
		var tiers loyalty.TierInput
		decodeInput(t, `{"tier_levels": [{"name": "Member"}, {"name": "Silver", "reach_spend": 10000}]}`, &tiers)
		if _, err := s.app.Services.Tiers.Create(context.Background(), s.business(t), tiers); err != nil {
			t.Fatal(err)
		}
		onScreens(t, s, screens, func(t *testing.T, sc screen) {
			ctx := context.Background()
			o := newTabOn(t, "owner", sc)
			s.signInOwner(o)
			loads := o.loads()
			o.follow("/business/automations", "automations")
			o.check("automations_empty")
			o.do(chromedp.Click(chromedp.CSS("#new-automation"), poll), waitPage("automation_form"))
			if o.eval(`document.getElementById("no_visit_days").getClientRects().length > 0`) {
				t.Error("the days of a trigger not chosen are shown")
			}
			o.check("automation_new")
			o.fill("#name", "We miss you")
			o.pick("trigger", "has not visited")
			o.fill("#no_visit_days", "60")
			o.pick("s0", "Send a message")
			o.pick("s0_channels", "E-mail")
			o.fill("#s0_subject", "We miss you", "#s0_email_body", "Come back: 50 points are waiting for you, {{first_name}}.")
			o.do(chromedp.Click(chromedp.CSS("#add-step"), poll))
			o.pick("s1", "Give points")
			o.fill("#s1_points", "50")
			if o.eval(`document.getElementById("s1_subject").getClientRects().length > 0`) {
				t.Error("a step giving points shows a message's boxes")
			}
			o.check("automation_filled")
			o.submitTo("#save", "automations", "notice=automation_saved")
			n := loads()
			t.Logf("create the automation “when a member has not visited for 60 days, send We miss you and give 50 points”: %d page loads from the dashboard (%s)", n, sc.name)
			if n > 3 {
				t.Errorf("creating the automation took %d page loads from the dashboard, want 3", n)
			}
			want := "When a member has not visited for 60 days → send “We miss you” → give 50 points"
			if got := o.text("#automations"); !strings.Contains(got, want) || !strings.Contains(got, "Every member") ||
				!strings.Contains(got, "Has not run yet") {
				t.Errorf("the list:\n%s\nwant %q", got, want)
			}

			// A coupon on a first purchase, for the segment; it runs.
			o.do(chromedp.Click(chromedp.CSS("#new-automation"), poll), waitPage("automation_form"))
			o.fill("#name", "Welcome croissant")
			o.pick("trigger", "first purchase")
			o.pick("s0", "Give a coupon")
			o.pick("s0_offer_id", "Free almond croissant")
			o.do(chromedp.Click(chromedp.CSS("#add-step"), poll))
			o.pick("s1", "Add a tag")
			o.fill("#s1_tag", "new")
			o.fill("#period_days", "365")
			o.submitTo("#save", "automations", "notice=automation_saved")
			if got := o.text("#automations"); !strings.Contains(got,
				"On a member's first purchase → give a coupon of offer “Free almond croissant with any coffee” → tag “new”") ||
				!strings.Contains(got, "not again within 365 days") {
				t.Errorf("the list:\n%s", got)
			}
			b := s.business(t)
			zoe, err := s.app.Services.Customers.Create(ctx, b, loyalty.CustomerInput{Email: loyalty.Some("zoe-" + sc.name + "@friends.example"),
				FirstName: loyalty.Some("Zoe")})
			if err != nil {
				t.Fatal(err)
			}
			var sale loyalty.TransactionInput
			decodeInput(t, `{"intent": "reward", "amount": 9}`, &sale)
			sale.Customer = loyalty.Some(loyalty.CustomerRef{ID: loyalty.Some(zoe.ID)})
			if _, _, err := s.app.Services.Transactions.Create(ctx, b, sale, nil); err != nil {
				t.Fatal(err)
			}
			// The app's runner passes over the customers once a minute, in
			// the background; this one, under the same lease, at once, until
			// a run is recorded (a pass of the app's under way may hold it).
			now := &loyalty.AutomationRunner{Store: s.app.DB, Holder: s.app.Automations.Holder, Every: time.Millisecond,
				Messages: s.app.Campaigns}
			for deadline := time.Now().Add(stepTimeout); ; time.Sleep(100 * time.Millisecond) {
				if _, err := now.RunOnce(ctx); err != nil {
					t.Fatal(err)
				}
				list, _, err := s.app.Services.Automations.List(ctx, b, loyalty.ListQuery{Page: 1, PerPage: 10})
				if err != nil {
					t.Fatal(err)
				}
				runs, err := s.app.Services.Automations.Runs(ctx, list[len(list)-1])
				if err != nil {
					t.Fatal(err)
				}
				if runs[loyalty.RunDone] > 0 || time.Now().After(deadline) {
					break
				}
			}
			o.open(s.url+"/business/automations", "automations")
			if got := o.text("#automations"); !strings.Contains(got, "Ran for 1 member") {
				t.Errorf("after Zoe's first purchase the list says:\n%s", got)
			}

			// Off, then edited.
			o.submitTo(`#automations li:first-child button[name="enabled"]`, "automations", "notice=automation_off")
			if got := o.text("#automations li:first-child .automation-state"); got != "Off" {
				t.Errorf("turned off, it says %q", got)
			}
			o.check("automations")
			o.do(chromedp.Click(chromedp.CSS(`#automations li:first-child .segment-name a`), poll), waitPage("automation_form"))
			if got := o.evalString(`document.getElementById("no_visit_days").value + "|" + document.getElementById("s0_subject").value`); got != "60|We miss you" {
				t.Errorf("the saved automation's form shows %q", got)
			}
			o.fill("#s1_points", "75")
			o.check("automation_edit")
			o.submitTo("#save", "automations", "notice=automation_saved")
			if got := o.text("#automations li:first-child"); !strings.Contains(got, "give 75 points") || !strings.Contains(got, "Off") {
				t.Errorf("after the edit:\n%s", got)
			}

			// Refusals beside their box.
			o.open(s.url+"/business/automations/new", "automation_form")
			o.pick("trigger", "has not visited")
			o.fill("#no_visit_days", "sixty")
			o.pick("s0", "Wait")
			o.fill("#s0_days", "7")
			o.submitTo("#save", "automation_form", "/business/automations/new")
			if got := o.text("#no_visit_days-error"); !strings.Contains(got, "Enter a number of days") {
				t.Errorf("sixty days: %q", got)
			}
			o.fill("#no_visit_days", "60")
			o.submitTo("#save", "automation_form", "/business/automations/new")
			if got := o.text("#name-error"); !strings.Contains(got, "Give the automation a name") {
				t.Errorf("no name: %q", got)
			}
			if got := o.text("#s0-error"); !strings.Contains(got, "A wait must come before another step") {
				t.Errorf("a wait last: %q", got)
			}
			o.check("automation_refused")

			// Without scripts, Add a step posts the form.
			o.do(emulationNoScript(true))
			o.open(s.url+"/business/automations/new", "automation_form")
			o.do(emulationNoScript(false))
			o.fill("#name", "Birthday")
			o.submitTo("#add-step", "automation_form", "/business/automations/new")
			if !o.waitTrue(`!document.getElementById("s1").hidden && document.getElementById("s2").hidden`) ||
				o.evalString(`document.getElementById("name").value`) != "Birthday" {
				t.Error("without scripts Add a step did not show a second step, keeping what was typed")
			}

			// A level lost: its own box of levels, read back as a sentence.
			o.open(s.url+"/business/automations/new", "automation_form")
			o.fill("#name", "Lapsed Silver")
			o.pick("trigger", "drops below a tier level")
			o.pick("lost_level_id", "Silver")
			if o.eval(`document.getElementById("level_id").getClientRects().length > 0`) {
				t.Error("the level box of a tier reached is shown for a tier lost")
			}
			o.pick("s0", "Add a tag")
			o.fill("#s0_tag", "lapsed")
			o.check("automation_tier_lost")
			o.submitTo("#save", "automations", "notice=automation_saved")
			if got := o.text("#automations"); !strings.Contains(got, "When a member loses tier level “Silver” → tag “lapsed”") {
				t.Errorf("the list after a tier lost:\n%s", got)
			}

			// Deleting asks first.
			o.open(s.url+"/business/automations", "automations")
			o.do(chromedp.Click(chromedp.CSS(`#automations li:first-child .segment-name a`), poll), waitPage("automation_form"))
			o.do(chromedp.Click(chromedp.CSS("#delete"), poll), waitPage("confirm"))
			if got := o.text("main"); !strings.Contains(got, "Delete the automation We miss you?") || !strings.Contains(got, "give 75 points") {
				t.Errorf("the confirmation:\n%s", got)
			}
			o.check("automation_delete")
			o.submitTo("#confirm", "automations", "notice=automation_deleted")
			if got := o.text("#automations"); strings.Contains(got, "We miss you") {
				t.Errorf("deleted, it is still listed:\n%s", got)
			}
		})
	})
}
