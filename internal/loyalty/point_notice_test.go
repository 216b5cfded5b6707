package loyalty_test

import (
	"strings"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// outboxMessage is a row of the outbox as the tests read it.
type outboxMessage struct{ channel, to, subject, body string }

func (w *world) outbox(tb testing.TB) []outboxMessage {
	tb.Helper()
	rows, err := w.db.SQL().QueryContext(w.ctx, `SELECT channel, recipient, subject, body FROM outbox
		WHERE subject NOT LIKE 'Welcome%' AND body NOT LIKE '%Welcome%' ORDER BY id`)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var out []outboxMessage
	for rows.Next() {
		var m outboxMessage
		if err := rows.Scan(&m.channel, &m.to, &m.subject, &m.body); err != nil {
			tb.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// notify runs the notices due at the store's now.
func (w *world) notify(tb testing.TB, late bool) int {
	tb.Helper()
	n, err := loyalty.NotifyDue(w.ctx, w.db, "", w.db.Now(), 2, late)
	if err != nil {
		tb.Fatalf("NotifyDue: %v", err)
	}
	return n
}

// TestExpiringSoonMessages: expiry_notice_days before its points expire, a
// customer is told once per expiry date, by e-mail or else SMS, in its
// language (en, fr, es), with the points and the last day; one who turned
// notices off through the user API's preference is not; a notice found
// after its expiry (the service was down) is not sent.
func TestExpiringSoonMessages(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		now := time.Date(2027, 4, 5, 8, 0, 0, 0, time.UTC)
		w.clock(&now)
		b := w.business(t, "CA")
		lb := w.policy(t, b, `{"points_expire_after":{"days":10},"expiry_notice_days":3,"time_zone":"America/Montreal"}`)
		fr := w.create(t, b, `{"email":"zoe@example.com","first_name":"Zoé","language":"fr"}`)
		es := w.create(t, b, `{"phone":"+1 514 555 0123","language":"es"}`)
		en := w.create(t, b, `{"email":"ann@example.com"}`)
		off := w.create(t, b, `{"email":"quiet@example.com"}`)
		prefs := &loyalty.PointsService{Store: w.db}
		program := loyalty.Program{Businesses: []loyalty.Business{b}}
		p, err := prefs.SetPreferences(w.ctx, program, off.ID, loyalty.PreferencesInput{ExpiryNotices: loyalty.Some(false)})
		if err != nil || p.ExpiryNotices {
			t.Fatalf("turning notices off: %+v, %v", p, err)
		}
		if p, _ := prefs.Preferences(w.ctx, program, fr.ID); !p.ExpiryNotices {
			t.Fatalf("notices are on unless turned off: %+v", p)
		}
		for _, c := range []loyalty.Customer{fr, es, en, off} {
			w.do(t, lb, `{"intent":"reward","points":40,"customer":{"id":"`+c.ID+`"}}`)
		}
		now = now.Add(2 * time.Hour)
		w.do(t, lb, `{"intent":"reward","points":2,"customer":{"id":"`+fr.ID+`"}}`)

		// Earned April 5 (Montreal), valid through April 15, expiring at the
		// midnight that ends it: told 3 days before, April 13 at midnight there.
		now = time.Date(2027, 4, 13, 3, 59, 59, 0, time.UTC)
		if n := w.notify(t, false); n != 0 {
			t.Fatalf("%d notices a second early", n)
		}
		now = now.Add(time.Second)
		if n := w.notify(t, false); n != 3 {
			t.Fatalf("%d notices, want 3 (one customer said no)", n)
		}
		if n := w.notify(t, false); n != 0 {
			t.Fatalf("a second run sent %d", n)
		}
		msgs := w.outbox(t)
		if len(msgs) != 3 {
			t.Fatalf("outbox: %+v", msgs)
		}
		want := map[string]struct{ channel, subject, line string }{
			"zoe@example.com": {"email", "Vos points expirent bientôt", "42 de vos points"},
			"+15145550123":    {"sms", "", "40 de sus puntos"},
			"ann@example.com": {"email", "Your points expire soon", "40 of your"},
		}
		for _, m := range msgs {
			x, ok := want[m.to]
			if !ok || m.channel != x.channel || m.subject != x.subject || !strings.Contains(m.body, x.line) ||
				!strings.Contains(m.body, "2027-04-15") {
				t.Errorf("message to %s: %+v", m.to, m)
			}
		}

		// Down from before a notice time until after the expiry: nothing is sent.
		lb = w.policy(t, b, `{"points_expire_after":{"days":1},"expiry_notice_days":1}`)
		w.do(t, lb, `{"intent":"reward","points":5,"customer":{"id":"`+en.ID+`"}}`)
		now = now.Add(5 * 24 * time.Hour)
		if n := w.notify(t, false); n != 0 || len(w.outbox(t)) != 3 {
			t.Fatalf("a late notice was sent: %d", n)
		}
	})
}
