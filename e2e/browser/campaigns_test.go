package browser

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/mail"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// campaignFixture gives the site's business one point per 1.00, a coupon
// offer with a long name, and 24 members not seen in 60 days (Ann first,
// then Lapsed 01 to 23; every one but each fourth agreed to e-mails, Ann
// to texts too) with two who came lately, Dan and Eve; and the segment
// "Not seen in 60 days" (24 members) unless noSegment.
func campaignFixture(t *testing.T, s *site, noSegment bool) (loyalty.Segment, loyalty.Offer) {
	t.Helper()
	ctx := context.Background()
	b := s.business(t)
	s.pointPerUnit(t, b)
	var offer loyalty.OfferInput
	decodeInput(t, `{"type_id": 2, "title": "Free almond croissant with any coffee", "points": 180}`, &offer)
	pastry, err := s.app.Services.Offers.Create(ctx, b, offer)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	add := func(first, last, email, phone string, consent loyalty.ContactChannels, ago int) {
		in := loyalty.CustomerInput{Email: loyalty.Some(email), FirstName: loyalty.Some(first), LastName: loyalty.Some(last)}
		if phone != "" {
			in.Phone = loyalty.Some(phone)
		}
		if consent.Email || consent.SMS {
			in.Consent = &loyalty.ConsentGiven{ContactChannels: consent, Source: loyalty.ConsentFromConsole, By: "test"}
		}
		c, err := s.app.Services.Customers.Create(ctx, b, in)
		if err != nil {
			t.Fatal(err)
		}
		var sale loyalty.TransactionInput
		decodeInput(t, `{"intent": "reward", "amount": 12}`, &sale)
		sale.Customer = loyalty.Some(loyalty.CustomerRef{ID: loyalty.Some(c.ID)})
		sale.CreatedAt = loyalty.Some(now.AddDate(0, 0, -ago).Format(time.RFC3339))
		if _, _, err := s.app.Services.Transactions.Create(ctx, b, sale, nil); err != nil {
			t.Fatal(err)
		}
	}
	add("Ann", "Lee", "ann@friends.example", "+14169791234", loyalty.ContactChannels{Email: true, SMS: true}, 90)
	for i := 1; i <= 23; i++ {
		add("Lapsed", fmt.Sprintf("%02d", i), fmt.Sprintf("lapsed%02d@friends.example", i), "",
			loyalty.ContactChannels{Email: i%4 != 0}, 61+i)
	}
	add("Dan", "Ito", "dan@friends.example", "", loyalty.ContactChannels{Email: true}, 10)
	add("Eve", "Moss", "eve@friends.example", "", loyalty.ContactChannels{Email: true}, 1)
	if noSegment {
		return loyalty.Segment{}, pastry
	}
	days := 60
	seg, err := s.app.Services.Segments.Save(ctx, b, "", loyalty.SegmentInput{Name: loyalty.Some("Not seen in 60 days"),
		Filters: loyalty.Some(loyalty.SegmentFilter{NotVisitedDays: &days})})
	if err != nil {
		t.Fatal(err)
	}
	return seg, pastry
}

// mailTo waits for the file outbox's e-mail to address whose subject is
// subject, and returns its headers and body.
func (s *site) mailTo(t *testing.T, address, subject string) (mail.Header, string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		files, _ := filepath.Glob(filepath.Join(s.dir, "outbox", "*.eml"))
		for _, name := range files {
			f, err := os.Open(name)
			if err != nil {
				continue
			}
			m, err := mail.ReadMessage(f)
			if err == nil && strings.EqualFold(m.Header.Get("To"), address) && m.Header.Get("Subject") == subject {
				body, _ := io.ReadAll(m.Body)
				f.Close()
				return m.Header, string(body)
			}
			f.Close()
		}
		if time.Now().After(deadline) {
			t.Fatalf("no e-mail to %s about %q in the outbox after 15 s", address, subject)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// mailsTo counts the file outbox's e-mails to address with subject.
func (s *site) mailsTo(address, subject string) int {
	n := 0
	files, _ := filepath.Glob(filepath.Join(s.dir, "outbox", "*.eml"))
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		if m, err := mail.ReadMessage(f); err == nil && strings.EqualFold(m.Header.Get("To"), address) && m.Header.Get("Subject") == subject {
			n++
		}
		f.Close()
	}
	return n
}

// recipients reads a campaign's recipients' outcomes by customer id.
func (s *site) recipients(t *testing.T, campaignID string) map[string]string {
	t.Helper()
	cid, err := strconv.ParseInt(campaignID, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := s.app.DB.SQL().QueryContext(context.Background(),
		`SELECT customer_id, outcome FROM campaign_recipients WHERE campaign_id = $1`, cid)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, outcome string
		if err := rows.Scan(&id, &outcome); err != nil {
			t.Fatal(err)
		}
		out[id] = outcome
	}
	return out
}

// TestCampaignSend: the owner sends "We miss you" with 50 points to the
// members not seen in 60 days, from the dashboard (a core job, its page
// loads counted, the segment already made): the form's preview shows the
// message as Ann, the segment's first member, receives it — the subject
// with her name inserted by the First name button, the e-mail with its
// unsubscribe footer, the text with its stop link — as it is typed; the
// test goes to the owner alone through the outbox, and the campaign stays
// a draft; sending asks first, saying to how many and what happens. Once
// the runner went, the report says what happened to the 24 members and,
// after recipients came back, how much more they spent than the holdout
// with its interval, saying the window is not over. The list shows the
// campaign sent with its results. On a desktop and a phone, every page
// checked for sideways scrolling, cut-off selects and accessibility.
func TestCampaignSend(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		seg, _ := campaignFixture(t, s, false)
		onScreens(t, s, screens, func(t *testing.T, sc screen) {
			ctx := context.Background()
			o := newTabOn(t, "owner", sc)
			s.signInOwner(o)

			loads := o.loads()
			o.follow("/business/campaigns", "campaigns")
			o.check("campaigns_empty")
			o.do(chromedp.Click(chromedp.CSS("#new-campaign"), poll), waitPage("campaign_form"))
			o.waitText("#pv-who", "choose a segment")
			o.check("campaign_new")
			o.fill("#name", "We miss you")
			o.pick("segment_id", "Not seen in 60 days")
			if got := o.text("#segment_id"); !strings.Contains(got, "24 members") {
				t.Errorf("the segments offered: %q, want the count of Not seen in 60 days", got)
			}
			o.waitText("#pv-who", "Ann Lee")
			o.typeIn("subject", "We miss you, ")
			o.do(chromedp.Focus(chromedp.CSS("#subject"), poll))
			o.do(chromedp.Click(chromedp.CSS(`#email-message .tokens button[data-token="{{first_name}}"]`), poll))
			if got := o.evalString(`document.getElementById("subject").value`); got != "We miss you, {{first_name}}" {
				t.Errorf("the subject after the First name button: %q", got)
			}
			o.waitExact("#pv-subject", "We miss you, Ann")
			o.typeIn("email_body", "Come back this week: 50 points are waiting for you at {{business_name}}.")
			o.waitText("#pv-email-body", "50 points are waiting for you at Corner Cafe.")
			o.waitText("#pv-email-body", "To stop: ")
			o.pick("channels", "Text message")
			o.typeIn("sms_body", "{{first_name}}, 50 points wait for you at Corner Cafe.")
			o.waitText("#pv-text", "Ann, 50 points wait for you at Corner Cafe. Stop: ")
			o.pick("gift", "Points")
			o.typeIn("gift_points", "50")
			o.do(chromedp.Click(chromedp.CSS(".more-conds summary"), poll))
			o.typeIn("holdout_percent", "25")
			seen := loads()
			o.check("campaign_new_preview")

			// A test to oneself: the owner's address alone, nothing drawn.
			o.submitTo("#test", "campaign_form", "notice=test_sent")
			if got := o.text(".alert-ok"); !strings.Contains(got, s.owner.Email) {
				t.Errorf("after the test: %q", got)
			}
			hd, body := s.mailTo(t, s.owner.Email, "[Test] We miss you, Ann")
			if !strings.Contains(body, "50 points are waiting for you at Corner Cafe.") || !strings.Contains(body, "/unsubscribe/preview") ||
				!strings.Contains(hd.Get("List-Unsubscribe"), "/unsubscribe/preview") {
				t.Errorf("the test e-mail:\n%v\n%s", hd, body)
			}
			loc, _ := o.location()
			id := strings.TrimPrefix(strings.SplitN(loc[strings.Index(loc, "/business/campaigns/"):], "?", 2)[0], "/business/campaigns/")
			c, err := s.app.Services.Campaigns.Get(ctx, s.business(t), id)
			if err != nil || c.State != loyalty.CampaignDraft || len(s.recipients(t, id)) != 0 || s.mailsTo("ann@friends.example", "We miss you, Ann") != 0 {
				t.Fatalf("after the test the campaign is %q (%v) with %d recipients", c.State, err, len(s.recipients(t, id)))
			}
			o.waitText("#pv-who", "Ann Lee")
			o.check("campaign_tested")

			// Sending asks first.
			o.submitTo("#send", "campaign_send", "/send")
			if got := o.text("#send-members"); got != "24 members" {
				t.Errorf("the confirmation counts %q", got)
			}
			if got := o.text(".effects"); !strings.Contains(got, "About 25\u00a0% of them") || !strings.Contains(got, "given 50 points") {
				t.Errorf("the confirmation says:\n%s", got)
			}
			o.check("campaign_send")
			o.submitTo("#send-now", "campaign_report", "notice=campaign_sending")
			// The test to oneself is one page load more, and optional.
			if n := loads() - 1; n > 4 {
				t.Errorf("sending “We miss you” with 50 points to the members not seen in 60 days took %d page loads from the dashboard, want 4 at most", n)
			} else {
				t.Logf("send a “We miss you” e-mail with 50 points to members not seen in 60 days (the segment made): %d page loads from the dashboard to the preview, %d to sent, %d with a test to oneself (%s)", seen, n, n+1, sc.name)
			}

			// The runner reaches them; recipients come back more.
			for range 5 {
				if _, err := s.app.Campaigns.RunOnce(ctx); err != nil {
					t.Fatal(err)
				}
			}
			out := s.recipients(t, id)
			b := s.business(t)
			reached, held := 0, 0
			for cid, outcome := range out {
				amount := ""
				switch outcome {
				case loyalty.RecipientSent:
					reached++
					if reached%2 == 1 {
						amount = "30"
					}
				case loyalty.RecipientHoldout:
					held++
					if held%3 == 1 {
						amount = "6"
					}
				}
				if amount == "" {
					continue
				}
				var sale loyalty.TransactionInput
				decodeInput(t, `{"intent": "reward", "amount": `+amount+`}`, &sale)
				sale.Customer = loyalty.Some(loyalty.CustomerRef{ID: loyalty.Some(cid)})
				if _, _, err := s.app.Services.Transactions.Create(ctx, b, sale, nil); err != nil {
					t.Fatal(err)
				}
			}
			if len(out) != 24 || reached == 0 || held < 2 {
				t.Fatalf("the campaign drew %d, reached %d, held out %d", len(out), reached, held)
			}
			for cid, outcome := range out {
				if outcome == loyalty.RecipientSent {
					who, err := s.app.Services.Customers.Get(ctx, b, cid)
					if err != nil {
						t.Fatal(err)
					}
					s.mailTo(t, who.Email, "We miss you, "+who.FirstName)
					break
				}
			}
			o.open(s.url+"/business/campaigns/"+id, "campaign_report")
			if got := o.text("#fig-sent .value"); got != strconv.Itoa(reached) {
				t.Errorf("the report says %s reached, want %d", got, reached)
			}
			if got := o.text("#fig-holdout .value"); got != strconv.Itoa(held) {
				t.Errorf("the report says %s held out, want %d", got, held)
			}
			if got := o.text("#fig-gifts .value"); got != strconv.Itoa(reached) {
				t.Errorf("the report says %s gifts, want %d", got, reached)
			}
			if got := o.text("#spend-sentence"); !strings.HasPrefix(got, "Recipients spent $") || !strings.Contains(got, "more per member than the holdout") ||
				!strings.Contains(got, "95\u00a0% sure between") {
				t.Errorf("the spend's sentence: %q", got)
			}
			if got := o.text("#report-open"); !strings.Contains(got, "Not complete yet") {
				t.Errorf("the open window: %q", got)
			}
			if !o.eval(`!!document.querySelector("#metric-spend .interval-svg")`) {
				t.Error("no chart of the spend's interval")
			}
			o.check("campaign_report")

			o.follow("/business/campaigns", "campaigns")
			if got := o.text("#campaigns"); !strings.Contains(got, "Sent") || !strings.Contains(got, strconv.Itoa(reached)+" reached") ||
				!strings.Contains(got, "Not seen in 60 days") {
				t.Errorf("the list:\n%s", got)
			}
			o.check("campaigns")
			_ = seg
		})
	})
}

// TestCampaignForm: a campaign the domain refuses is shown again with
// each reason beside its box, what was typed kept, and never a 500 (no
// name, no segment, an e-mail without subject, a personal field that is
// none, a gift of "fifty" points); without scripts the preview's button
// previews; a draft is scheduled for a day and time (a past one refused
// beside the boxes), then cancelled after a confirmation; a coupon gift
// names its offer. A cashier has neither the menu item nor the pages. On
// a desktop and a phone, every page checked.
func TestCampaignForm(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		campaignFixture(t, s, false)
		onScreens(t, s, screens, func(t *testing.T, sc screen) {
			o := newTabOn(t, "owner", sc)
			s.signInOwner(o)
			o.open(s.url+"/business/campaigns/new", "campaign_form")
			o.fill("#subject", "Hi {{nickname}}")
			o.pick("gift", "Points")
			o.fill("#gift_points", "fifty")
			o.submitTo("#save", "campaign_form", "/business/campaigns/new")
			if got := o.text("#gift_points-error"); !strings.Contains(got, "Enter the points") {
				t.Errorf("beside the gift's points: %q", got)
			}
			o.fill("#gift_points", "50")
			o.submitTo("#save", "campaign_form", "/business/campaigns/new")
			for box, want := range map[string]string{"name": "Give the campaign a name", "segment_id": "Choose the segment",
				"subject": "{{nickname}} is not a personal field"} {
				if got := o.text("#" + box + "-error"); !strings.Contains(got, want) {
					t.Errorf("beside %s: %q, want %q", box, got, want)
				}
			}
			if got := o.evalString(`document.getElementById("subject").value`); got != "Hi {{nickname}}" {
				t.Errorf("the refused form lost the subject: %q", got)
			}
			o.waitText("#pv-unknown", "{{nickname}}")
			o.check("campaign_refused")
			o.fill("#name", "Nickname", "#subject", "Hi {{first_name}}")
			o.pick("segment_id", "Not seen in 60 days")
			o.submitTo("#save", "campaign_form", "/business/campaigns/new")
			if got := o.text("#email_body-error"); !strings.Contains(got, "An e-mail needs a message") {
				t.Errorf("beside the message: %q", got)
			}

			// Without scripts the preview's button previews.
			o.do(emulationNoScript(true))
			o.open(s.url+"/business/campaigns/new", "campaign_form")
			o.do(emulationNoScript(false))
			o.pick("segment_id", "Not seen in 60 days")
			o.fill("#subject", "Hello {{first_name}}")
			o.submitTo("#preview-button", "campaign_form", "/business/campaigns/new")
			o.waitExact("#pv-subject", "Hello Ann")

			// A coupon, scheduled, then cancelled.
			o.open(s.url+"/business/campaigns/new", "campaign_form")
			o.fill("#name", "Croissant week")
			o.pick("segment_id", "Not seen in 60 days")
			o.fill("#subject", "A croissant for you", "#email_body", "Show this at the counter.")
			o.pick("gift", "A coupon")
			o.pick("gift_offer_id", "Free almond croissant")
			o.waitExact("#pv-subject", "A croissant for you")
			o.check("campaign_coupon")
			o.submitTo("#send", "campaign_send", "/send")
			o.fill("#send_date", "2020-01-01", "#send_time", "09:00")
			o.submitTo("#schedule", "campaign_send", "/send")
			if got := o.text("#send_at-error"); !strings.Contains(got, "That time has passed") {
				t.Errorf("a past time: %q", got)
			}
			o.check("campaign_send_refused")
			o.fill("#send_date", time.Now().AddDate(0, 0, 3).Format(time.DateOnly), "#send_time", "10:30")
			o.submitTo("#schedule", "campaign_report", "notice=campaign_scheduled")
			if got := o.text("#campaign-status"); !strings.Contains(got, "Scheduled") || !strings.Contains(got, "at 10:30") ||
				!strings.Contains(got, "Free almond croissant with any coffee") {
				t.Errorf("the scheduled campaign: %q", got)
			}
			o.check("campaign_scheduled")
			o.do(chromedp.Click(chromedp.CSS("#cancel"), poll), waitPage("confirm"))
			o.submitTo("#confirm", "campaigns", "notice=campaign_deleted")
			if o.eval(`!!document.getElementById("campaigns")`) {
				t.Errorf("cancelled, the campaign is still listed:\n%s", o.text("#campaigns"))
			}

			// A cashier: no menu item, no page.
			s.inviteStaff(t, o, "till-"+sc.name+"@cafe.example", "cashier", "cashier-pass-1")
			c := newTabOn(t, "cashier", sc)
			c.open(s.url+"/business", "signin")
			c.fill("#email", "till-"+sc.name+"@cafe.example", "#password", "cashier-pass-1")
			c.submit(`main button[type="submit"]`, "counter")
			if c.eval(`!!document.querySelector('nav.console-nav a[href="/business/campaigns"], nav.console-nav a[href="/business/automations"]')`) {
				t.Error("a cashier's menu offers Campaigns or Automations")
			}
			for _, path := range []string{"/business/campaigns", "/business/campaigns/new", "/business/automations", "/business/automations/new"} {
				if st := c.status(s.url + path); st != http.StatusForbidden {
					t.Errorf("a cashier opening %s: %d, want 403", path, st)
				}
			}
		})
	})
}

// TestCampaignNewSegment: with no segment yet, the owner makes "Not seen
// in 60 days" and sends it "We miss you" with 50 points from the
// segments list's Send a campaign, which chooses the segment in the form
// (the core job without a segment, its page loads counted from the
// dashboard).
func TestCampaignNewSegment(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		campaignFixture(t, s, true)
		onScreens(t, s, screens, func(t *testing.T, sc screen) {
			o := newTabOn(t, "owner", sc)
			s.signInOwner(o)
			loads := o.loads()
			o.follow("/business/segments", "segments")
			o.do(chromedp.Click(chromedp.CSS("#new-segment"), poll), waitPage("segment_form"))
			o.fill("#name", "Not seen in 60 days")
			o.typeIn("not_visited_days", "60")
			o.waitExact("#match-count", "24")
			o.submitTo("#save", "segments", "notice=segment_saved")
			o.do(chromedp.Click(chromedp.CSS(`#segments a[href^="/business/campaigns/new?segment="]`), poll), waitPage("campaign_form"))
			if !o.eval(`document.querySelector('#segment_id input:checked').closest("label").textContent.includes("Not seen in 60 days")`) {
				t.Error("the segments list's Send a campaign did not choose the segment")
			}
			o.fill("#name", "We miss you", "#subject", "We miss you, {{first_name}}",
				"#email_body", "Come back this week: 50 points are waiting for you.")
			o.pick("gift", "Points")
			o.fill("#gift_points", "50")
			o.waitText("#pv-who", "Ann Lee")
			o.submitTo("#send", "campaign_send", "/send")
			o.submitTo("#send-now", "campaign_report", "notice=campaign_sending")
			n := loads()
			if n > 6 {
				t.Errorf("making the segment and sending it “We miss you” took %d page loads from the dashboard, want 6 at most", n)
			}
			t.Logf("send a “We miss you” e-mail with 50 points to members not seen in 60 days, the segment made on the way: %d page loads from the dashboard (%s)", n, sc.name)
		})
	})
}
