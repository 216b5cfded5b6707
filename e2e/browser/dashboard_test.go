package browser

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// sale is an entry the test records through the services, to compare the
// dashboard's figures with.
type sale struct {
	at     time.Time
	amount loyalty.Money // of a rewarded purchase; 0 for a redemption
	points int64
}

// sum adds up the sales in [from, to) and counts their visits.
func sum(sales []sale, from, to time.Time) (amount loyalty.Money, visits int64) {
	for _, s := range sales {
		if !s.at.Before(from) && s.at.Before(to) && s.amount > 0 {
			amount += s.amount
			visits++
		}
	}
	return amount, visits
}

// change writes the change from prev to cur as the dashboard does.
func change(cur, prev int64) string {
	d := (cur - prev) * 10000 / prev
	tenths := (d + 5) / 10
	if tenths%10 == 0 {
		return fmt.Sprintf("+%d%%", tenths/10)
	}
	return fmt.Sprintf("+%d.%d%%", tenths/10, tenths%10)
}

// countLoads counts the pages the tab loads (main-frame navigations that
// commit: a redirect is one load, a link to a place in the page none)
// from now on.
func (b *tab) countLoads() *atomic.Int64 {
	var n atomic.Int64
	err := chromedp.Listen(b.ctx, func(ev any) {
		if e, ok := ev.(*page.EventFrameNavigated); ok && e.Frame.ParentID == "" {
			n.Add(1)
		}
	})
	if err != nil {
		b.t.Fatalf("listen to %s's browser: %v", b.name, err)
	}
	return &n
}

// TestDashboard: with sales recorded through the services last month, the
// month before and today, a manager signs in and lands on the cockpit
// (a cashier on the counter, refused the dashboard, the developer portal
// not in the footer). The grouped menu fits one row on a desktop and
// folds behind Menu on a phone, where the key figures come first. The
// manager follows the "Last month" preset and sees the month's revenue
// and visits beside the month before's, with the change, the top
// customers and rewards and the tier mix, all as recorded: one page load
// after the landing page. The per-day table is folded; charts are SVG
// images with a title and a description, their date labels apart. On a
// desktop and a phone, each page checked for sideways scrolling and
// accessibility.
func TestDashboard(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		ctx := context.Background()
		b := s.business(t)
		s.pointPerUnit(t, b)
		var cashback loyalty.RewardInput
		decodeInput(t, `{"kind": "catalog_item", "title": "Five off", "points": 10, "type_id": 16, "amount": 5, "redeem_for_gift_card": false}`, &cashback)
		five, err := s.app.Services.Rewards.Create(ctx, b, cashback)
		if err != nil {
			t.Fatal(err)
		}
		var tiers loyalty.TierInput
		decodeInput(t, `{"tier_levels": [{"name": "Bronze"}, {"name": "Gold", "reach_spend": 100000}]}`, &tiers)
		if _, err := s.app.Services.Tiers.Create(ctx, b, tiers); err != nil {
			t.Fatal(err)
		}
		ann, err := s.app.Services.Customers.Create(ctx, b, loyalty.CustomerInput{Email: loyalty.Some("ann@friends.example"),
			FirstName: loyalty.Some("Ann"), LastName: loyalty.Some("Lee")})
		if err != nil {
			t.Fatal(err)
		}
		bob, err := s.app.Services.Customers.Create(ctx, b, loyalty.CustomerInput{Email: loyalty.Some("bob@friends.example")})
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC()
		thisMonth := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
		lastMonth, monthBefore := thisMonth.AddDate(0, -1, 0), thisMonth.AddDate(0, -2, 0)
		var sales []sale
		record := func(who string, at time.Time, body string) {
			t.Helper()
			var in loyalty.TransactionInput
			decodeInput(t, body, &in)
			in.Customer = loyalty.Some(loyalty.CustomerRef{ID: loyalty.Some(who)})
			if at.Before(now.Add(-time.Minute)) {
				in.CreatedAt = loyalty.Some(at.Format(time.RFC3339))
			}
			e, _, err := s.app.Services.Transactions.Create(ctx, b, in, nil)
			if err != nil {
				t.Fatalf("%s: %v", body, err)
			}
			sales = append(sales, sale{at: e.CreatedAt, amount: e.Amount * loyalty.Money(boolInt(e.Intent == loyalty.IntentReward)), points: e.Points})
		}
		record(ann.ID, monthBefore.Add(50*time.Hour), `{"intent": "reward", "amount": 50}`)
		record(ann.ID, lastMonth.Add(58*time.Hour), `{"intent": "reward", "amount": 120.50}`)
		record(bob.ID, lastMonth.Add(82*time.Hour), `{"intent": "reward", "amount": 60}`)
		record(ann.ID, lastMonth.Add(83*time.Hour), fmt.Sprintf(`{"intent": "redeem", "catalog_items": [{"id": %d}]}`, five.ID))
		record(ann.ID, now, `{"intent": "reward", "amount": 40}`)
		record(ann.ID, now, `{"intent": "redeem", "points": 15}`)
		var outstanding int64
		for _, s := range sales {
			outstanding += s.points
		}
		lastRevenue, lastVisits := sum(sales, lastMonth, thisMonth)
		beforeRevenue, beforeVisits := sum(sales, monthBefore, lastMonth)

		owner := newTab(t, "owner")
		s.signInOwner(owner)
		s.inviteStaff(t, owner, "boss@cafe.example", "manager", "manager-pass-1")
		s.inviteStaff(t, owner, "till@cafe.example", "cashier", "cashier-pass-1")

		onScreens(t, s, screens, func(t *testing.T, sc screen) {
			m := newTabOn(t, "manager", sc)
			m.open(s.url+"/business", "signin")
			m.fill("#email", "boss@cafe.example", "#password", "manager-pass-1")
			m.submit(`main button[type="submit"]`, "dashboard")
			loads := m.countLoads()
			m.check("dashboard")
			want := map[string]string{"#members-count": "2", "#kpi-liability .value": b.FormatMoney(loyalty.Money(outstanding * 500 / 10))}
			for sel, v := range want {
				if got := m.text(sel); got != v {
					t.Errorf("%s shows %q, want %s", sel, got, v)
				}
			}
			if n := m.evalString(`String(document.querySelectorAll('svg[role="img"] > title + desc').length)`); n != "4" {
				t.Errorf("%s charts with a title and a description, want 4", n)
			}
			if n := m.evalString(`String(document.querySelectorAll("#numbers tbody tr").length)`); n != "30" {
				t.Errorf("the table has %s days, want the last 30", n)
			}
			if m.eval(`document.querySelector("details#numbers").open`) {
				t.Error("the per-day table is unfolded at first")
			}
			// The labels under a chart's axis never run into each other.
			if overlap := m.evalString(`(() => { for (const svg of document.querySelectorAll("svg.chart-svg")) {
					const ticks = Array.from(svg.querySelectorAll("text[text-anchor=middle]")).map(e => e.getBoundingClientRect());
					for (let i = 1; i < ticks.length; i++) if (ticks[i-1].right > ticks[i].left) return svg.querySelector("title").textContent }
					return "" })()`); overlap != "" {
				t.Errorf("the date labels of %q run into each other", overlap)
			}
			if sc.mobile {
				// Header and menu take little of the phone's screen, and the
				// first screen shows key figures.
				if h := m.evalString(`String(Math.round(document.querySelector("header.top").getBoundingClientRect().height))`); !m.eval(`document.querySelector("header.top").getBoundingClientRect().height <= 150`) {
					t.Errorf("header and menu take %s px of the phone's 844, want at most 150", h)
				}
				if !m.eval(`document.querySelector("#kpi-visits").getBoundingClientRect().bottom <= window.innerHeight`) {
					t.Error("on a phone the first screen does not show the first key figures")
				}
			} else if rows := m.evalString(`String(new Set(Array.from(document.querySelectorAll("nav.console-nav .menu > li")).map(e => Math.round(e.getBoundingClientRect().top))).size)`); rows != "1" {
				t.Errorf("the console's menu takes %s rows at %d px, want 1", rows, sc.width)
			}

			// The core job: how last month compared with the one before.
			lastLink := `nav.presets a[href*="from=` + lastMonth.Format(loyalty.DayFormat) + `"][href*="to=` +
				thisMonth.AddDate(0, 0, -1).Format(loyalty.DayFormat) + `"]`
			if got := m.text(lastLink); got != "Last month" {
				t.Errorf("the preset of last month reads %q", got)
			}
			m.do(chromedp.Click(chromedp.CSS(lastLink), poll))
			m.do(chromedp.WaitVisible(chromedp.CSS(lastLink+`[aria-current="true"]`), poll), waitPage("dashboard"))
			m.check("dashboard_last_month")
			if n := loads.Load(); n > 3 {
				t.Errorf("the comparison took %d page loads after the landing page, want at most 3", n)
			} else {
				t.Logf("last month against the month before: %d page load(s) after the landing page, at %d px", n, sc.width)
			}
			month := lastMonth.AddDate(0, -1, 0).Format("Jan 2006")
			if got := m.text("#kpi-revenue .value"); got != b.FormatMoney(lastRevenue) {
				t.Errorf("last month's revenue shows %q, want %s", got, b.FormatMoney(lastRevenue))
			}
			if got, want := m.text("#kpi-revenue .change"), change(int64(lastRevenue), int64(beforeRevenue))+" on "+month+" ("+b.FormatMoney(beforeRevenue)+")"; got != want {
				t.Errorf("last month's revenue change %q, want %q", got, want)
			}
			if got, want := m.text("#kpi-visits .change"), change(lastVisits, beforeVisits)+" on "+month+" ("+fmt.Sprint(beforeVisits)+")"; got != want {
				t.Errorf("last month's visits change %q, want %q", got, want)
			}
			if got := m.text("#kpi-visits .value"); got != fmt.Sprint(lastVisits) {
				t.Errorf("last month's visits %q, want %d", got, lastVisits)
			}
			if got := m.text("#top-customers li"); !strings.Contains(got, "Ann Lee") || !strings.Contains(got, b.FormatMoney(12050)) {
				t.Errorf("the top customer is %q, want Ann Lee with %s", got, b.FormatMoney(12050))
			}
			if got := m.text("#top-rewards li"); !strings.Contains(got, "Five off") || !strings.Contains(got, "1 redeemed") {
				t.Errorf("the top reward is %q, want Five off, 1 redeemed", got)
			}
			if got := m.text("#tier-mix li"); !strings.Contains(got, "Bronze") || !strings.Contains(got, "2 · 100%") {
				t.Errorf("the tier mix starts %q, want Bronze with both members", got)
			}

			m.do(chromedp.SetValue(chromedp.CSS("#by"), "month", poll))
			m.submitTo("#show", "dashboard", "by=month")
			m.check("dashboard_months")
			if got := m.text("#kpi-visits .value"); got != fmt.Sprint(lastVisits) {
				t.Errorf("by month the visits are %q", got)
			}
			if sc.mobile {
				// The menu opens without a script.
				m.do(chromedp.Click(chromedp.CSS(`nav.console-nav .menu-toggle summary`), poll),
					chromedp.WaitVisible(chromedp.CSS(`nav.console-nav a[href="/business/counter"]`), poll))
				m.check("dashboard_menu")
			}

			c := newTabOn(t, "cashier", sc)
			c.open(s.url+"/business", "signin")
			c.fill("#email", "till@cafe.example", "#password", "cashier-pass-1")
			c.submit(`main button[type="submit"]`, "counter")
			if footer := c.text("footer"); strings.Contains(footer, "Developer") || strings.Contains(footer, "API") {
				t.Errorf("a cashier's footer shows %q", footer)
			}
			if st := c.status(s.url + "/business/dashboard"); st != http.StatusForbidden {
				t.Errorf("a cashier opening the dashboard: %d, want 403", st)
			}
		})
	})
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
