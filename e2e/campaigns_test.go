package e2e

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/loyalty/loyalty/internal/app"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/testenv"
)

// smtpBox is a real SMTP server on 127.0.0.1 (github.com/emersion/go-smtp)
// that keeps each message it accepts, parsed.
type smtpBox struct {
	mu   sync.Mutex
	got  []*mail.Message
	raw  [][]byte
	addr string
}

type smtpBoxSession struct{ box *smtpBox }

func (s smtpBoxSession) Reset()                               {}
func (s smtpBoxSession) Logout() error                        { return nil }
func (s smtpBoxSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s smtpBoxSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (s smtpBoxSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m, err := mail.ReadMessage(bytes.NewReader(b))
	if err != nil {
		return err
	}
	s.box.mu.Lock()
	s.box.got, s.box.raw = append(s.box.got, m), append(s.box.raw, b)
	s.box.mu.Unlock()
	return nil
}

func startSMTPBox(t *testing.T) *smtpBox {
	t.Helper()
	box := &smtpBox{}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return smtpBoxSession{box}, nil }))
	srv.Domain = "localhost"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	box.addr = ln.Addr().String()
	return box
}

// withSubject returns the messages of a subject, by recipient.
func (b *smtpBox) withSubject(subject string) map[string][]*mail.Message {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string][]*mail.Message{}
	for _, m := range b.got {
		if m.Header.Get("Subject") == subject {
			out[m.Header.Get("To")] = append(out[m.Header.Get("To")], m)
		}
	}
	return out
}

// campaignView is a campaign as the API shows it.
type campaignView struct {
	ID    int64  `json:"id"`
	State string `json:"state"`
}

// TestCampaigns sends a campaign through a real SMTP server: the segment
// is drawn once, a holdout of the asked share gets nothing, every
// consenting recipient outside it gets exactly one e-mail (with
// List-Unsubscribe headers and a working link) and the gift, nobody
// without consent gets anything, nothing goes out in quiet hours, two
// runners at once send nothing twice; the report counts the outcomes and
// compares what recipients and holdout spent afterwards; the one-click
// unsubscribe records the change in the consent history.
func TestCampaigns(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		box := startSMTPBox(t)
		e := startWith(t, testenv.MigratedDSN(t, engine), roomy, func(c *app.Config) { c.SMTP = "smtp://" + box.addr })
		sb := e.sandboxBusiness(t)
		a := e.owner(t, sb)
		a.moveClock(t, map[string]any{"to": "2031-06-10T12:00:00+00:00"})

		const n = 40
		consenting := map[string]string{} // customer id by e-mail, of those who said yes to e-mail
		var ids []string
		for i := range n {
			email := "m" + strconv.Itoa(i) + "@camp.example"
			id := a.createCustomer(t, map[string]any{"email": email, "first_name": "M" + strconv.Itoa(i)}).ID
			ids = append(ids, id)
			if i%4 != 0 {
				a.do(t, http.MethodPost, "/customers/"+id+"/consents", map[string]any{"allow_email": true, "allow_sms": false,
					"allow_push": false}).want(t, http.StatusOK)
				consenting[email] = id
			}
		}
		var seg struct{ Data struct{ ID int64 } }
		a.do(t, http.MethodPost, "/segments", map[string]any{"name": "Everyone"}).want(t, http.StatusCreated).decode(t, &seg)

		// Refusals name the field.
		a.do(t, http.MethodPost, "/campaigns", map[string]any{"name": "x", "segment_id": 999999}).wantFields(t, "segment_id")
		a.do(t, http.MethodPost, "/campaigns", map[string]any{"name": "x", "segment_id": seg.Data.ID, "channels": []string{"email"}}).
			wantFields(t, "subject", "email_body")
		a.do(t, http.MethodPost, "/campaigns", map[string]any{"name": "x", "segment_id": seg.Data.ID, "subject": "Hi {{nickname}}",
			"email_body": "b"}).wantFields(t, "subject")
		a.do(t, http.MethodPost, "/campaigns", map[string]any{"name": "x", "segment_id": seg.Data.ID, "subject": "s", "email_body": "b",
			"holdout_percent": 90}).wantFields(t, "holdout_percent")

		var c struct{ Data campaignView }
		a.do(t, http.MethodPost, "/campaigns", map[string]any{
			"name": "Summer", "segment_id": seg.Data.ID, "channels": []string{"email"},
			"subject": "A gift for you", "email_body": "Hello {{first_name}}, you have {{points}} points at {{business_name}}.",
			"gift":            map[string]any{"points": 25},
			"holdout_percent": 50, "report_days": 14,
			"quiet_hours": map[string]any{"start": "11:00", "end": "13:00"},
		}).want(t, http.StatusCreated).decode(t, &c)
		id := strconv.FormatInt(c.Data.ID, 10)
		a.do(t, http.MethodDelete, "/segments/"+strconv.FormatInt(seg.Data.ID, 10), nil).wantError(t, http.StatusConflict, "campaign")
		a.do(t, http.MethodPost, "/campaigns/"+id+"/send", map[string]any{}).want(t, http.StatusOK).decode(t, &c)
		if c.Data.State != "scheduled" {
			t.Fatalf("sent campaign state %q", c.Data.State)
		}
		a.do(t, http.MethodPut, "/campaigns/"+id, map[string]any{"name": "Changed"}).wantError(t, http.StatusConflict, "draft")

		// Quiet hours (11:00-13:00 UTC, and it is noon): drawn, nothing sent.
		run := func() {
			t.Helper()
			if _, err := e.app.Campaigns.RunOnce(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		run()
		var rep struct {
			Data struct {
				State      string         `json:"state"`
				Outcomes   map[string]int `json:"outcomes"`
				Gifts      int            `json:"gifts"`
				Delivered  int            `json:"delivered"`
				Comparison *struct {
					Recipients struct{ Members int } `json:"recipients"`
					Holdout    struct{ Members int } `json:"holdout"`
					Difference struct {
						Spend *struct{ Value, Low, High string } `json:"spend"`
					} `json:"difference"`
				} `json:"comparison"`
			}
		}
		report := func() {
			t.Helper()
			a.get(t, "/campaigns/"+id+"/report").want(t, http.StatusOK).decode(t, &rep)
		}
		report()
		holdout := rep.Data.Outcomes["holdout"]
		if holdout+rep.Data.Outcomes["pending"] != n || holdout < 8 || holdout > 32 {
			t.Fatalf("in quiet hours: outcomes %v, want all %d drawn, about half in the holdout, none sent", rep.Data.Outcomes, n)
		}

		// Past the quiet hours, two runners at once.
		a.moveClock(t, map[string]any{"advance": "PT2H"})
		other := *e.app.Campaigns
		other.Holder = "other-instance"
		var wg sync.WaitGroup
		for _, r := range []*loyalty.CampaignRunner{e.app.Campaigns, &other} {
			wg.Go(func() {
				for range 3 {
					if _, err := r.RunOnce(context.Background()); err != nil {
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		run()
		report()
		if rep.Data.State != "sent" {
			t.Fatalf("campaign %v after the quiet hours, want sent", rep.Data)
		}
		sent := rep.Data.Outcomes["sent"]
		if sent+rep.Data.Outcomes["no_consent"]+holdout != n || rep.Data.Gifts != sent || sent == 0 {
			t.Fatalf("outcomes %v, gifts %d", rep.Data.Outcomes, rep.Data.Gifts)
		}

		// The mail: once per consenting recipient, nobody else, with the way out.
		deadline := time.Now().Add(30 * time.Second)
		var got map[string][]*mail.Message
		for {
			got = box.withSubject("A gift for you")
			if len(got) >= sent || time.Now().After(deadline) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if len(got) != sent {
			t.Fatalf("%d addresses got the e-mail, %d recipients were sent it", len(got), sent)
		}
		var link string
		for to, msgs := range got {
			if len(msgs) != 1 {
				t.Errorf("%s got the campaign %d times", to, len(msgs))
			}
			cid, ok := consenting[to]
			if !ok {
				t.Errorf("%s got the campaign without consenting", to)
				continue
			}
			m := msgs[0]
			body, _ := io.ReadAll(m.Body)
			if !strings.Contains(string(body), "Hello M") || !strings.Contains(string(body), "at Sandbox Cafe") {
				t.Errorf("body for %s not merged: %q", to, body)
			}
			lu := m.Header.Get("List-Unsubscribe")
			if !strings.HasPrefix(lu, "<http") || m.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" ||
				!strings.Contains(string(body), strings.Trim(lu, "<>")) {
				t.Errorf("%s: List-Unsubscribe %q, -Post %q, body %q", to, lu, m.Header.Get("List-Unsubscribe-Post"), body)
			}
			if p := a.pointsBalance(t, cid)["points"].(float64); p != 25 {
				t.Errorf("%s has %v points, want the gift's 25", to, p)
			}
			link = strings.Trim(lu, "<>")
		}
		if p := a.pointsBalance(t, ids[0])["points"].(float64); p != 0 {
			t.Errorf("a customer without consent has %v points, want 0", p)
		}

		// Recipients who were sent it buy within the window; the holdout does not.
		for email, cid := range consenting {
			if _, reached := got[email]; reached {
				a.catTransact(t, cid, map[string]any{"intent": "reward", "amount": 20})
			}
		}
		rep.Data.Outcomes = nil
		report()
		if cmp := rep.Data.Comparison; cmp == nil || cmp.Recipients.Members+cmp.Holdout.Members != n ||
			cmp.Holdout.Members != holdout || cmp.Difference.Spend == nil {
			t.Fatalf("comparison %+v", rep.Data.Comparison)
		} else if v, _ := strconv.ParseFloat(cmp.Difference.Spend.Value, 64); v <= 0 {
			t.Errorf("spend difference %+v, want recipients ahead", cmp.Difference.Spend)
		}

		// The link: a page, then one click from the mail program, recorded.
		u, err := url.Parse(link)
		if err != nil {
			t.Fatal(err)
		}
		plain := func(path string) *result {
			req, _ := http.NewRequest(http.MethodGet, e.url+path, nil)
			return e.sendUnchecked(t, req)
		}
		page := plain(u.Path)
		if page.Status != http.StatusOK || !strings.Contains(string(page.Body), "Unsubscribe") {
			t.Fatalf("unsubscribe page: %d %s", page.Status, page.Body)
		}
		req, _ := http.NewRequest(http.MethodPost, e.url+u.Path, strings.NewReader("List-Unsubscribe=One-Click"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res := e.sendUnchecked(t, req)
		if res.Status != http.StatusOK || !strings.Contains(string(res.Body), "unsubscribed") {
			t.Fatalf("one-click unsubscribe: %d %s", res.Status, res.Body)
		}
		var hist struct {
			Data []struct {
				AllowEmail bool   `json:"allow_email"`
				Source     string `json:"source"`
			}
		}
		unsubscribed := strings.Split(strings.TrimPrefix(u.Path, "/unsubscribe/"), ".")[1]
		a.get(t, "/customers/"+unsubscribed+"/consents").
			want(t, http.StatusOK).decode(t, &hist)
		if len(hist.Data) != 2 || hist.Data[0].AllowEmail || hist.Data[0].Source != "app" || !hist.Data[1].AllowEmail {
			t.Errorf("consent history after unsubscribing %+v, want the withdrawal (app) over the yes", hist.Data)
		}
		if n := a.segmentCount(t, map[string]any{"consent": "email"}); n != len(consenting)-1 {
			t.Errorf("%d consenting after one unsubscribed, want %d", n, len(consenting)-1)
		}
		if r := plain("/unsubscribe/" + sb.ID + ".someone.forged"); r.Status != http.StatusNotFound {
			t.Errorf("a forged unsubscribe link: %d, want 404", r.Status)
		}

		// A second campaign skips whoever a campaign reached in the last 30 days.
		// sendNow creates a campaign of body, sends it now, runs the sender
		// until it is done and reads its report into rep; it returns its id.
		sendNow := func(body map[string]any) string {
			t.Helper()
			var made struct{ Data campaignView }
			a.do(t, http.MethodPost, "/campaigns", body).want(t, http.StatusCreated).decode(t, &made)
			id := strconv.FormatInt(made.Data.ID, 10)
			a.do(t, http.MethodPost, "/campaigns/"+id+"/send", nil).want(t, http.StatusOK)
			for range 5 {
				run()
			}
			rep.Data.Outcomes = nil
			a.get(t, "/campaigns/"+id+"/report").want(t, http.StatusOK).decode(t, &rep)
			return id
		}
		sendNow(map[string]any{"name": "Again", "segment_id": seg.Data.ID, "subject": "Again",
			"email_body": "Hello again", "holdout_percent": 0, "skip_reached_days": 30})
		if rep.Data.Outcomes["recent"] != sent {
			t.Errorf("second campaign outcomes %v, want the %d reached before skipped as recent", rep.Data.Outcomes, sent)
		}

		// A coupon as the gift; one recipient uses it.
		offer := a.catOffer(t, map[string]any{"type_id": 9, "title": "10% off", "discount_value": 10, "points": 40})
		a.do(t, http.MethodPost, "/campaigns", map[string]any{"name": "Bad gift", "segment_id": seg.Data.ID, "subject": "s",
			"email_body": "b", "gift": map[string]any{"points": 5, "offer_id": catNum(offer)}}).wantFields(t, "gift")
		id3 := sendNow(map[string]any{"name": "Coupon", "segment_id": seg.Data.ID, "subject": "Your coupon",
			"email_body": "Here it is", "holdout_percent": 0, "gift": map[string]any{"offer_id": catNum(offer)}})
		var some string
		for _, cid := range consenting {
			if l := a.catList(t, "/customers/"+cid+"/available-coupons"); len(l.Data) == 1 {
				some = cid // (the offer's 40 points are more than any recipient has: a gift that took them would fail)
				a.catTransact(t, cid, map[string]any{"intent": "claim_coupon", "coupon": map[string]any{"id": l.Data[0]["id"]}})
				break
			}
		}
		var used struct {
			Data struct {
				Gifts     int `json:"gifts"`
				GiftsUsed int `json:"gifts_used"`
			}
		}
		a.get(t, "/campaigns/"+id3+"/report").want(t, http.StatusOK).decode(t, &used)
		if some == "" || used.Data.Gifts != rep.Data.Outcomes["sent"] || used.Data.Gifts == 0 || used.Data.GiftsUsed != 1 {
			t.Errorf("coupon campaign: outcomes %v, gifts %d, used %d; want a coupon per recipient sent, one used",
				rep.Data.Outcomes, used.Data.Gifts, used.Data.GiftsUsed)
		}

		// Recipients are reached several to a transaction: a gift the
		// ledger refuses to one (a once-per-customer offer they had
		// already) fails that recipient alone; the others of their
		// transaction still get their message and their coupon, once.
		once := a.catOffer(t, map[string]any{"type_id": 9, "title": "Once", "discount_value": 5, "offer_frequency_id": 4})
		for email, cid := range consenting {
			if strings.EqualFold(cid, unsubscribed) {
				delete(consenting, email) // (no longer consenting: a no_consent now)
			}
		}
		var had string
		for _, cid := range consenting {
			had = cid
			break
		}
		a.catTransact(t, had, map[string]any{"intent": "get_coupon", "offer": map[string]any{"id": catNum(once)}})
		sendNow(map[string]any{"name": "Once", "segment_id": seg.Data.ID, "subject": "Once more",
			"email_body": "For you", "holdout_percent": 0, "gift": map[string]any{"offer_id": catNum(once)}})
		if rep.Data.Outcomes["failed"] != 1 || rep.Data.Outcomes["sent"] != len(consenting)-1 || rep.Data.Gifts != len(consenting)-1 {
			t.Errorf("once-per-customer gift: outcomes %v, gifts %d; want the member who had it failed, the other %d sent with a gift",
				rep.Data.Outcomes, rep.Data.Gifts, len(consenting)-1)
		}
		for _, cid := range consenting {
			n := 0
			for _, c := range a.catList(t, "/customers/"+cid+"/available-coupons").Data {
				if o, _ := c["offer"].(map[string]any); o != nil && catID(o) == once {
					n++
				}
			}
			if n != 1 {
				t.Errorf("customer %s holds %d coupons of the once-per-customer offer, want 1", cid, n)
			}
		}
	})
}
