package e2e

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAutomations runs a birthday and an inactivity automation on a
// sandbox business's clock: the birthday gift and message on the day,
// once, only to the member whose birthday it is, by e-mail only with
// consent; again a year later; the inactivity automation tags every
// member not seen for 60 days (one who never came included), waits a
// week, then gives points, each once per lapse; bad automations are
// refused by field; another business cannot read them.
func TestAutomations(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		sb := e.sandboxBusiness(t)
		a := e.owner(t, sb)
		a.moveClock(t, map[string]any{"to": "2031-03-01T12:00:00+00:00"})
		run := func() {
			t.Helper()
			if _, err := e.app.Automations.RunOnce(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		advance := func(days int) {
			a.moveClock(t, map[string]any{"advance": "P" + strconv.Itoa(days) + "D"})
			run()
			run() // a second run in the same moment does nothing more
		}

		ann := a.createCustomer(t, map[string]any{"email": "ann@auto.example", "first_name": "Ann", "birth_date": "1990-03-05"}).ID
		bob := a.createCustomer(t, map[string]any{"email": "bob@auto.example", "first_name": "Bob", "birth_date": "1985-07-01"}).ID
		cid := a.createCustomer(t, map[string]any{"email": "cid@auto.example", "first_name": "Cid", "birth_date": "1980-03-05"}).ID
		a.do(t, http.MethodPost, "/customers/"+ann+"/consents", map[string]any{"allow_email": true, "allow_sms": false, "allow_push": false}).
			want(t, http.StatusOK)
		a.catTransact(t, ann, map[string]any{"intent": "reward", "points": 10})
		a.catTransact(t, bob, map[string]any{"intent": "reward", "points": 10})
		points := func(id string) int64 { return int64(a.pointsBalance(t, id)["points"].(float64)) }
		tags := func(id string) string {
			var r struct{ Data struct{ Tags []string } }
			a.get(t, "/customers/"+id+"/tags").want(t, http.StatusOK).decode(t, &r)
			return strings.Join(r.Data.Tags, ",")
		}

		for field, body := range map[string]map[string]any{
			"trigger.type":       {"name": "x", "trigger": map[string]any{"type": "someday"}, "actions": []any{map[string]any{"type": "add_tag", "tag": "x"}}},
			"trigger.days":       {"name": "x", "trigger": map[string]any{"type": "no_visit"}, "actions": []any{map[string]any{"type": "add_tag", "tag": "x"}}},
			"actions":            {"name": "x", "trigger": map[string]any{"type": "first_purchase"}, "actions": []any{}},
			"actions.0":          {"name": "x", "trigger": map[string]any{"type": "first_purchase"}, "actions": []any{map[string]any{"type": "wait", "days": 3}}},
			"actions.0.points":   {"name": "x", "trigger": map[string]any{"type": "first_purchase"}, "actions": []any{map[string]any{"type": "give_points"}}},
			"actions.0.subject":  {"name": "x", "trigger": map[string]any{"type": "first_purchase"}, "actions": []any{map[string]any{"type": "send_message", "email_body": "Hi"}}},
			"actions.0.type":     {"name": "x", "trigger": map[string]any{"type": "first_purchase"}, "actions": []any{map[string]any{"type": "dance"}}},
			"segment_id":         {"name": "x", "segment_id": 99999, "trigger": map[string]any{"type": "first_purchase"}, "actions": []any{map[string]any{"type": "add_tag", "tag": "x"}}},
			"actions.0.sms_body": {"name": "x", "trigger": map[string]any{"type": "first_purchase"}, "actions": []any{map[string]any{"type": "send_message", "channels": []string{"sms"}}}},
		} {
			a.do(t, http.MethodPost, "/automations", body).wantFields(t, field)
		}

		var birthday, lapsed struct {
			Data struct {
				ID          int64          `json:"id"`
				Description string         `json:"description"`
				Runs        map[string]int `json:"runs"`
			}
		}
		a.do(t, http.MethodPost, "/automations", map[string]any{
			"name": "Birthday", "trigger": map[string]any{"type": "birthday", "days": 0}, "period_days": 300,
			"actions": []any{
				map[string]any{"type": "give_points", "points": 100},
				map[string]any{"type": "send_message", "subject": "Happy birthday {{first_name}}", "email_body": "100 points for you."},
			}}).want(t, http.StatusCreated).decode(t, &birthday)
		a.do(t, http.MethodPost, "/automations", map[string]any{
			"name": "We miss you", "trigger": map[string]any{"type": "no_visit", "days": 60},
			"actions": []any{
				map[string]any{"type": "add_tag", "tag": "Lapsed"},
				map[string]any{"type": "wait", "days": 7},
				map[string]any{"type": "give_points", "points": 50},
			}}).want(t, http.StatusCreated).decode(t, &lapsed)
		if want := "When a member has not visited for 60 days → tag “Lapsed” → wait 7 days → give 50 points"; lapsed.Data.Description != want {
			t.Errorf("description %q, want %q", lapsed.Data.Description, want)
		}
		bID, lID := strconv.FormatInt(birthday.Data.ID, 10), strconv.FormatInt(lapsed.Data.ID, 10)

		run()
		if p := points(ann); p != 10 {
			t.Fatalf("on 1 March Ann has %d points, want 10: no birthday yet", p)
		}
		advance(4) // 5 March: Ann's and Cid's birthday
		if p, c, b := points(ann), points(cid), points(bob); p != 110 || c != 100 || b != 10 {
			t.Errorf("on the birthday Ann %d, Cid %d, Bob %d points; want 110, 100, 10", p, c, b)
		}
		deadline := time.Now().Add(20 * time.Second)
		for len(e.messagesTo(t, "ann@auto.example")) == 0 && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		var wishes int
		for _, m := range e.messages(t) {
			if strings.HasPrefix(m.Subject, "Happy birthday") {
				wishes++
				if m.To != "ann@auto.example" || m.Subject != "Happy birthday Ann" {
					t.Errorf("birthday message %q to %s: only Ann consented", m.Subject, m.To)
				}
			}
		}
		if wishes != 1 {
			t.Errorf("%d birthday messages, want 1 (Ann's; Cid did not consent)", wishes)
		}

		advance(61) // 5 May: nobody has visited for 60 days, Cid never did
		for _, id := range []string{ann, bob, cid} {
			if got := tags(id); got != "lapsed" {
				t.Errorf("tags of %s after 61 days: %q, want lapsed", id, got)
			}
		}
		lapsed.Data.Runs = nil
		a.get(t, "/automations/"+lID).want(t, http.StatusOK).decode(t, &lapsed)
		if lapsed.Data.Runs["waiting"] != 3 {
			t.Errorf("inactivity runs %v, want 3 waiting", lapsed.Data.Runs)
		}
		before := points(bob)
		advance(7) // the wait is over
		if got := points(bob) - before; got != 50 {
			t.Errorf("after the wait Bob got %d points, want 50", got)
		}
		lapsed.Data.Runs = nil
		a.get(t, "/automations/"+lID).want(t, http.StatusOK).decode(t, &lapsed)
		if lapsed.Data.Runs["done"] != 3 || lapsed.Data.Runs["waiting"] != 0 {
			t.Errorf("inactivity runs %v, want 3 done", lapsed.Data.Runs)
		}
		advance(1) // the same lapse never runs twice
		lapsed.Data.Runs = nil
		a.get(t, "/automations/"+lID).want(t, http.StatusOK).decode(t, &lapsed)
		if lapsed.Data.Runs["done"] != 3 {
			t.Errorf("inactivity runs %v the day after, want still 3", lapsed.Data.Runs)
		}

		a.moveClock(t, map[string]any{"to": "2032-03-05T12:00:00+00:00"})
		run()
		birthday.Data.Runs = nil
		a.get(t, "/automations/"+bID).want(t, http.StatusOK).decode(t, &birthday)
		if birthday.Data.Runs["done"] != 4 {
			t.Errorf("birthday runs a year later %v, want 4 done (Ann and Cid, twice)", birthday.Data.Runs)
		}

		// A welcome coupon on the first purchase, to a member who joins now.
		offer := a.catOffer(t, map[string]any{"type_id": 8, "title": "Free tea", "points": 30})
		a.do(t, http.MethodPost, "/automations", map[string]any{"name": "Welcome", "trigger": map[string]any{"type": "first_purchase"},
			"actions": []any{map[string]any{"type": "issue_coupon", "offer_id": 999999}}}).wantFields(t, "actions.0.offer_id")
		a.do(t, http.MethodPost, "/automations", map[string]any{"name": "Welcome", "trigger": map[string]any{"type": "first_purchase"},
			"actions": []any{map[string]any{"type": "issue_coupon", "offer_id": catNum(offer)}}}).want(t, http.StatusCreated)
		dee := a.createCustomer(t, map[string]any{"email": "dee@auto.example"}).ID
		a.catTransact(t, dee, map[string]any{"intent": "reward", "points": 5})
		advance(1)
		if l := a.catList(t, "/customers/"+dee+"/available-coupons"); len(l.Data) != 1 || points(dee) != 5 {
			t.Errorf("after her first purchase Dee holds %d coupons and %d points, want 1 and 5 (a gift takes none)", len(l.Data), points(dee))
		}
		if l := a.catList(t, "/customers/"+ann+"/available-coupons"); len(l.Data) != 0 {
			t.Errorf("Ann, whose first purchase was before, got %d coupons", len(l.Data))
		}

		other := e.owner(t, e.biz)
		other.get(t, "/automations/"+bID).want(t, http.StatusNotFound)
		a.do(t, http.MethodDelete, "/automations/"+bID, nil).want(t, http.StatusNoContent)
		a.get(t, "/automations/"+bID).want(t, http.StatusNotFound)
	})
}

// TestAutomationTriggers: a tier level reached and a punch card completed
// (on a live business: the tier keeper counts by the real clock) each fire
// once, and only for what happens after the automation was made; points
// about to expire (on a sandbox business's clock) fire before they
// expire; what another business owns is refused.
func TestAutomationTriggers(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		// The service's runner (its lease), passing over the customers as
		// often as asked: the live business's clock does not move.
		runner := *e.app.Automations
		runner.Every = time.Millisecond
		run := func() {
			t.Helper()
			if _, err := runner.RunOnce(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		tagsOf := func(c *client, id string) string {
			var r struct{ Data struct{ Tags []string } }
			c.get(t, "/customers/"+id+"/tags").want(t, http.StatusOK).decode(t, &r)
			return strings.Join(r.Data.Tags, ",")
		}
		tagIf := func(c *client, name string, trigger map[string]any) {
			t.Helper()
			c.do(t, http.MethodPost, "/automations", map[string]any{"name": name, "trigger": trigger,
				"actions": []any{map[string]any{"type": "add_tag", "tag": name}}}).want(t, http.StatusCreated)
		}

		levels := a.do(t, http.MethodPost, "/tiers", map[string]any{"tier_levels": []any{tierLvl("Member", 0, 0, 0),
			tierLvl("Silver", 0, 0, 150)}}).tierOf(t).TierLevels
		member, silver := levels[0].ID, levels[1].ID
		tea := a.catOffer(t, map[string]any{"type_id": 8, "title": "Free tea"})
		card := catID(a.catData(t, http.MethodPost, "/punch-cards", map[string]any{"name": "Tea card", "stamps_required": 2,
			"reward_offer_id": catNum(tea)}))
		sb := e.sandboxBusiness(t)
		s := e.owner(t, sb)
		theirs := catID(s.catData(t, http.MethodPost, "/punch-cards", map[string]any{"name": "Theirs", "stamps_required": 2,
			"reward_offer_id": catNum(s.catOffer(t, map[string]any{"type_id": 8, "title": "Theirs"}))}))
		a.do(t, http.MethodPost, "/automations", map[string]any{"name": "x", "trigger": map[string]any{"type": "card_completed",
			"card_id": catNum(theirs)}, "actions": []any{map[string]any{"type": "add_tag", "tag": "x"}}}).wantFields(t, "trigger.card_id")
		a.do(t, http.MethodPost, "/automations", map[string]any{"name": "x", "trigger": map[string]any{"type": "tier_reached",
			"level_id": 999999}, "actions": []any{map[string]any{"type": "add_tag", "tag": "x"}}}).wantFields(t, "trigger.level_id")

		// Bob is Silver and completed the card before the automations exist.
		waitLevel := func(id, name string, level int64) {
			t.Helper()
			deadline := time.Now().Add(20 * time.Second)
			for time.Now().Before(deadline) {
				if st, _ := a.standingOf(t, id); st != nil && st.Name == name {
					var n int
					e.app.DB.SQL().QueryRow(`SELECT COUNT(*) FROM customer_tiers WHERE customer_id = $1 AND level_id = $2`, id, level).Scan(&n)
					if n == 1 {
						return
					}
				}
				time.Sleep(100 * time.Millisecond)
			}
			t.Fatalf("the tier keeper never announced %s for %s", name, id)
		}
		waitTier := func(id string) { t.Helper(); waitLevel(id, "Silver", silver) }
		bob := a.createCustomer(t, map[string]any{"email": "bob@trig.example"}).ID
		a.catTransact(t, bob, map[string]any{"intent": "reward", "amount": 200})
		a.catTransact(t, bob, map[string]any{"intent": "reward", "amount": 1})
		waitTier(bob)
		tagIf(a, "silver", map[string]any{"type": "tier_reached", "level_id": silver})
		tagIf(a, "card", map[string]any{"type": "card_completed", "card_id": catNum(card)})
		run()
		run()
		// Carl reached Silver and lost it (his reward cancelled) before
		// an automation of a lost Silver exists.
		carl := a.createCustomer(t, map[string]any{"email": "carl@trig.example"}).ID
		carlLift := catID(a.catTransact(t, carl, map[string]any{"intent": "reward", "amount": 160}))
		waitTier(carl)
		a.do(t, http.MethodDelete, "/transactions/"+carlLift, nil).want(t, http.StatusNoContent)
		waitLevel(carl, "Member", member)
		tagIf(a, "lost-silver", map[string]any{"type": "tier_lost", "level_id": silver})
		run()
		run()
		ann := a.createCustomer(t, map[string]any{"email": "ann@trig.example"}).ID
		annLift := catID(a.catTransact(t, ann, map[string]any{"intent": "reward", "amount": 160}))
		a.catTransact(t, ann, map[string]any{"intent": "reward", "amount": 1})
		waitTier(ann)
		time.Sleep(1100 * time.Millisecond) // a new second: a new pass
		for range 3 {
			run()
		}
		if got := tagsOf(a, ann); got != "card,silver" {
			t.Errorf("Ann's tags after reaching Silver and completing the card: %q, want card,silver", got)
		}
		if got := tagsOf(a, bob); got != "" {
			t.Errorf("Bob, Silver with a full card before the automations, was tagged %q", got)
		}
		// A second completion fires again.
		a.do(t, http.MethodPut, "/customers/"+ann+"/tags", map[string]any{"tags": []string{}}).want(t, http.StatusOK)
		a.catTransact(t, ann, map[string]any{"intent": "reward", "amount": 1})
		a.catTransact(t, ann, map[string]any{"intent": "reward", "amount": 1})
		time.Sleep(1100 * time.Millisecond) // the store's clock counts whole seconds: a pass in the same second is not new
		for range 3 {
			run()
		}
		if got := tagsOf(a, ann); got != "card" {
			t.Errorf("after a second completion Ann's tags are %q, want card (Silver fires once)", got)
		}
		// Ann loses Silver (her reward that reached it cancelled): the
		// loss fires, once; Carl's loss, before the automation, never.
		a.do(t, http.MethodDelete, "/transactions/"+annLift, nil).want(t, http.StatusNoContent)
		waitLevel(ann, "Member", member)
		time.Sleep(1100 * time.Millisecond)
		for range 3 {
			run()
		}
		if got := tagsOf(a, ann); got != "card,lost-silver" {
			t.Errorf("after losing Silver Ann's tags are %q, want card,lost-silver", got)
		}
		if got := tagsOf(a, carl); got != "" {
			t.Errorf("Carl, who lost Silver before the automation, was tagged %q", got)
		}

		// Points about to expire, on the sandbox clock.
		s.moveClock(t, map[string]any{"to": "2031-01-10T12:00:00+00:00"})
		s.do(t, http.MethodPatch, "/rules", map[string]any{"points_expire_after": map[string]any{"months": 1}}).want(t, http.StatusOK)
		tagIf(s, "expiring", map[string]any{"type": "points_expiring", "days": 7})
		cid := s.createCustomer(t, map[string]any{"email": "cid@trig.example"}).ID
		s.catTransact(t, cid, map[string]any{"intent": "reward", "points": 100})
		run()
		if got := tagsOf(s, cid); got != "" {
			t.Fatalf("tagged %q a month before the points expire", got)
		}
		for days := 0; days < 70 && tagsOf(s, cid) == ""; days += 2 {
			s.moveClock(t, map[string]any{"advance": "P2D"})
			run()
		}
		if got := tagsOf(s, cid); got != "expiring" {
			t.Errorf("Cid's tags as her points were about to expire: %q", got)
		} else if p := s.pointsBalance(t, cid)["points"].(float64); p != 100 {
			t.Errorf("tagged expiring with %v points left, want the 100 still there", p)
		}
	})
}
