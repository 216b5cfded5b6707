package sqlstore_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/events"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestRoadsAgree is the test that a ledger change's two roads cannot
// drift: the same seeded random program (earning rules, points expiry,
// pending days, expiry notices, a tier program with one of the downgrade
// policies, points offers of every frequency, a referral program) and the
// same random operations on it (rewards by amount, points and visits,
// redemptions, returns, adjustments, cancellations, referees joining,
// the clock moving with activations and expiries settled, tiers kept and
// rolled, rewards with baskets under earning rules over products and a
// punch card, returns by item, an earning rule kept to the customers a
// campaign reached for some days) are applied once as the service applies them, everyday rewards
// through the group writer, and once one by one, every change in a
// transaction of its own. Both must leave identical entries, lots, lot
// uses, balances, tier places, offer uses, referrals and events, and
// neither a lot or basket without its entry (checkNoOrphans).
func TestRoadsAgree(t *testing.T) {
	for _, engine := range testenv.Engines() {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			batched, oneByOne := testenv.Open(t, engine), testenv.Open(t, engine)
			baskets, campaignUses := 0, 0
			defer func() {
				if baskets == 0 && !t.Failed() {
					t.Errorf("no reward with a basket went through the group writer")
				}
				if campaignUses == 0 && !t.Failed() {
					t.Errorf("the campaign's earning rule applied to no reward")
				}
			}()
			for seed := uint64(1); seed <= 6; seed++ {
				a := runRoads(t, batched, seed, false)
				b := runRoads(t, oneByOne, seed, true)
				baskets += a.baskets
				campaignUses += strings.Count(a.state["rule uses"], "| campaign:")
				if a.batched == 0 {
					t.Fatalf("seed %d: no change went through the group writer", seed)
				}
				if b.batched != 0 {
					t.Fatalf("seed %d: %d changes went through the group writer one by one", seed, b.batched)
				}
				for _, part := range slices.Sorted(maps.Keys(a.state)) {
					if got, want := b.state[part], a.state[part]; got != want {
						t.Errorf("seed %d: the roads disagree on %s:\n%s", seed, part, firstDifference(want, got))
					}
				}
			}
		})
	}
}

// roadsOutcome is what a run left, by part, in a form both runs share.
type roadsOutcome struct {
	state   map[string]string
	batched int // changes the group writer applied
	baskets int // of those, rewards with a basket
}

// countingStore counts the changes the group writer applies.
type countingStore struct {
	*sqlstore.DB
	batched, baskets *int
}

// AppendAlone implements loyalty.Store.
func (s countingStore) AppendAlone(ctx context.Context, e *loyalty.Transaction) (bool, error) {
	done, err := s.DB.AppendAlone(ctx, e)
	if done {
		*s.batched++
		if e.Basket != nil {
			*s.baskets++
		}
	}
	return done, err
}

// roadsRun is one run of a seed's program on one store.
type roadsRun struct {
	t         *testing.T
	db        *sqlstore.DB
	rng       *rand.Rand
	now       time.Time
	b         loyalty.Business
	svc       *loyalty.TransactionService
	customers []string // in the order they were created
	entries   []int64  // written, cancellable or not
	baskets   []int64  // rewards with a basket, returnable by item
	program   int64    // the referral program, 0 for none
}

// runRoads sets up the seed's program in a new business of db and runs
// its operations, through the group writer or (oneByOne) not.
func runRoads(t *testing.T, db *sqlstore.DB, seed uint64, oneByOne bool) roadsOutcome {
	t.Helper()
	r := &roadsRun{t: t, db: db, rng: rand.New(rand.NewPCG(seed, 33)), now: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	setClock(db, r.now)
	r.b = loyalty.Business{ID: createBusiness(t, db, "").BusinessID}
	var batched, baskets int
	store := countingStore{DB: db, batched: &batched, baskets: &baskets}
	customers := &loyalty.CustomerService{Store: db}
	r.svc = &loyalty.TransactionService{Store: store, Customers: customers}
	r.program = r.setUp()
	campaign := r.campaignRule()
	// Batched, the business as the API reads it, with its rules: everyday
	// rewards then go through the group writer. One by one, the business
	// without them: every change is decided and applied in a transaction
	// of its own, its rules read there.
	b, err := db.BusinessWithRules(ctx, r.b.ID)
	if oneByOne {
		b, err = db.Business(ctx, r.b.ID)
	}
	if err != nil {
		t.Fatal(err)
	}
	r.b = b
	for i := range 3 {
		r.customers = append(r.customers, createCustomer(t, db, r.b.ID, loyalty.CustomerInput{
			Email: loyalty.Some(fmt.Sprintf("c%d@roads.example", i))}).ID)
	}
	r.sendCampaign(campaign)
	keeper := &events.TierKeeper{Store: db, Clock: func() time.Time { return r.now }}
	r.sequence()
	for step := range 60 {
		r.step(step, customers)
		r.sequence()
		if step%10 == 9 {
			if _, err := keeper.Drain(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	r.tick(40 * 24 * time.Hour)
	if _, err := loyalty.RollTiers(ctx, db, r.b.ID, r.now, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SequenceEvents(ctx, r.b.ID); err != nil {
		t.Fatal(err)
	}
	// The ledger list's totals, read from the entry counts, are the
	// entries either road wrote (TestLedgerTotals).
	checkLedgerTotals(t, db, r.b.ID)
	checkNoOrphans(t, db, r.b.ID)
	return roadsOutcome{state: r.snapshot(), batched: batched, baskets: baskets}
}

// setUp gives the business a random program: earning rules and the life
// of points, points offers, a tier program and a referral program.
func (r *roadsRun) setUp() int64 {
	t, rng := r.t, r.rng
	rules := map[string]any{"earning": map[string]any{"reward_ratio": 1 + rng.IntN(5), "reward_milestone_amount": []json.Number{"1.00", "5.00", "10.00"}[rng.IntN(3)],
		"round_up_points": rng.IntN(2) == 0}, "pending_days": []int{0, 0, 2, 5}[rng.IntN(4)],
		"expiry_notice_days": rng.IntN(3), "time_zone": []string{"UTC", "America/New_York", "Europe/Paris"}[rng.IntN(3)]}
	switch rng.IntN(3) {
	case 1:
		rules["points_expire_after"] = map[string]int{"days": 3 + rng.IntN(20)}
	case 2:
		rules["points_expire_after"] = map[string]int{"months": 1}
	}
	var in loyalty.RulesInput
	decode(t, rules, &in)
	if _, err := r.svc.UpdateRules(ctx, r.b, in); err != nil {
		t.Fatalf("rules %v: %v", rules, err)
	}
	offers := &loyalty.OfferService{Store: r.db}
	for i := range rng.IntN(4) {
		o := map[string]any{"title": fmt.Sprintf("Offer %d", i)}
		// Once ever, a day or a week per customer, or on some weekdays'
		// hours: the days, weeks and hours are the business's, and the
		// operations' ticks cross them.
		switch rng.IntN(6) {
		case 1:
			o["offer_frequency_id"] = loyalty.OfferOnce
		case 2:
			o["offer_frequency_id"] = loyalty.OfferDaily
		case 3:
			o["offer_frequency_id"] = loyalty.OfferWeekly
		case 4:
			o["offer_frequency_id"], o["freq_details"] = loyalty.OfferDayTime, []any{"1", "3", "5", "6"}
			o["peak_from"], o["peak_to"] = []string{"00:00", "08:00"}[rng.IntN(2)], []string{"17:30", "23:59"}[rng.IntN(2)]
		}
		if rng.IntN(2) == 0 {
			o["type_id"], o["multip_factor"] = loyalty.OfferPointsMultiplier, []json.Number{"1.50", "2.00", "3.00"}[rng.IntN(3)]
		} else {
			o["type_id"], o["points"] = loyalty.OfferBonusPoints, 5+rng.IntN(50)
		}
		if rng.IntN(2) == 0 {
			o["min_purchase"] = json.Number("20.00")
		}
		var oin loyalty.OfferInput
		decode(t, o, &oin)
		if _, err := offers.Create(ctx, r.b, oin); err != nil {
			t.Fatalf("offer %v: %v", o, err)
		}
	}
	if rng.IntN(4) > 0 {
		policy := []string{loyalty.DowngradeRecompute, loyalty.DowngradeKeep, loyalty.DowngradeOneDown}[rng.IntN(3)]
		reset := loyalty.TierResetCalendar
		if policy == loyalty.DowngradeRecompute && rng.IntN(2) == 0 {
			// keep and one_down act at a calendar period's end only.
			reset = loyalty.TierResetRolling
		}
		in := loyalty.TierInput{DowngradePolicy: loyalty.Some(policy), ResetType: loyalty.Some(reset),
			ResetPeriodMonth: loyalty.Some(1), BasePreviousPeriod: loyalty.Some(rng.IntN(2)),
			TierLevels: tierLevelInputs("Member", 0, "Silver", 5000, "Gold", 20000)}
		if _, err := (&loyalty.TierService{Store: r.db}).Create(ctx, r.b, in); err != nil {
			t.Fatalf("tier program (%s): %v", policy, err)
		}
	}
	r.basketRules()
	if rng.IntN(3) == 0 {
		return 0
	}
	p, err := (&loyalty.ReferralProgramService{Store: r.db}).Create(ctx, r.b, loyalty.ReferralProgramInput{
		CondMinAmount: loyalty.Some(loyalty.Money(1000)), RefereeEarns: loyalty.Some[int64](25), RefererEarns: loyalty.Some[int64](40),
		ExpiresIn: loyalty.Some[int64](30)})
	if err != nil {
		t.Fatal(err)
	}
	return p.ID
}

// campaignRule gives the business an earning rule as a campaign's gift:
// 30 bonus points on a spend, for the customers tagged "lapsed" whom the
// campaign reaches (by push, with their consent), for 20 days from being
// reached. The rule is kept to the campaign before the business's rules
// are read for the run (the campaign's save changes it); the campaign is
// sent once the customers exist (sendCampaign).
func (r *roadsRun) campaignRule() int64 {
	t := r.t
	var rin loyalty.EarningRuleInput
	decode(t, map[string]any{"name": "Comeback bonus", "enabled": false, "effect": map[string]any{"type": "bonus", "points": 30}}, &rin)
	rule, err := (&loyalty.EarningRuleService{Store: r.db}).Create(ctx, r.b, rin)
	if err != nil {
		t.Fatal(err)
	}
	var sin loyalty.SegmentInput
	decode(t, map[string]any{"name": "Lapsed", "filters": map[string]any{"tags_any": []string{"lapsed"}}}, &sin)
	seg, err := (&loyalty.SegmentService{Store: r.db}).Save(ctx, r.b, "", sin)
	if err != nil {
		t.Fatal(err)
	}
	var cin loyalty.CampaignInput
	decode(t, map[string]any{"name": "Come back", "segment_id": seg.ID, "channels": []string{"push"}, "sms_body": "30 points more",
		"holdout_percent": 0, "gift": map[string]any{"earning_rule_id": rule.ID, "days": 20}}, &cin)
	c, err := (&loyalty.CampaignService{Store: r.db}).Save(ctx, r.b, "", cin)
	if err != nil {
		t.Fatal(err)
	}
	return c.ID
}

// sendCampaign sends the campaign of campaignRule to its segment: the
// first customer consents to push and is reached, the second is drawn but
// refused by consent, the third is not in the segment.
func (r *roadsRun) sendCampaign(id int64) {
	t := r.t
	customers := &loyalty.CustomerService{Store: r.db}
	for _, who := range r.customers[:2] {
		if _, err := customers.SetTags(ctx, r.b, who, loyalty.TagsInput{Tags: loyalty.Some([]string{"lapsed"})}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := (&loyalty.ConsentService{Store: r.db}).Change(ctx, r.b, r.customers[0], loyalty.ConsentMarketing,
		loyalty.ConsentInput{Push: loyalty.Some(true)}, "app", "", false); err != nil {
		t.Fatal(err)
	}
	campaigns := &loyalty.CampaignService{Store: r.db}
	if _, err := campaigns.Send(ctx, r.b, strconv.FormatInt(id, 10), time.Time{}); err != nil {
		t.Fatal(err)
	}
	runner := &loyalty.CampaignRunner{Store: r.db, Holder: "roads", Rate: 1000}
	for range 4 {
		if _, err := runner.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
	tally, err := campaigns.Store.RecipientTally(ctx, id, loyalty.CouponClaimed())
	if err != nil {
		t.Fatal(err)
	}
	if tally.Outcomes[loyalty.RecipientSent] != 1 || tally.Outcomes[loyalty.RecipientNoConsent] != 1 {
		t.Fatalf("campaign outcomes %v, want one reached and one refused by consent", tally.Outcomes)
	}
}

// basketRules gives the business products in two categories, some
// earning rules over them and, sometimes, a punch card.
func (r *roadsRun) basketRules() {
	t, rng := r.t, r.rng
	products := &loyalty.ProductService{Store: r.db}
	var cats, prods []int64
	for _, name := range []string{"Drinks", "Food"} {
		c, err := products.SaveCategory(ctx, r.b, "", loyalty.CategoryInput{Name: loyalty.Some(name)})
		if err != nil {
			t.Fatal(err)
		}
		cats = append(cats, c.ID)
	}
	for i := range 4 {
		p, err := products.Create(ctx, r.b, loyalty.ProductInput{Title: loyalty.Some(fmt.Sprint("Product ", i)),
			SKU: loyalty.Some(fmt.Sprint("SKU-", i)), CategoryID: loyalty.Some(cats[i%2])})
		if err != nil {
			t.Fatal(err)
		}
		prods = append(prods, p.ID)
	}
	rules := &loyalty.EarningRuleService{Store: r.db}
	for i := range 1 + rng.IntN(4) {
		rule := []map[string]any{
			{"effect": map[string]any{"type": "multiplier", "factor": 2}, "conditions": map[string]any{"categories": []int64{cats[0]}}},
			{"effect": map[string]any{"type": "points_per_item", "points": 3}, "conditions": map[string]any{"products": []int64{prods[1]}}},
			{"effect": map[string]any{"type": "bonus", "points": 15}, "conditions": map[string]any{"min_amount": 30}},
			{"effect": map[string]any{"type": "points_per_amount", "points": 1, "per_amount": 4}, "priority": -1,
				"conditions": map[string]any{"categories": []int64{cats[1]}}},
			{"effect": map[string]any{"type": "bonus", "points": 4}, "conditions": map[string]any{"channels": []string{"online"}}},
		}[rng.IntN(5)]
		rule["name"] = fmt.Sprint("Rule ", i)
		var in loyalty.EarningRuleInput
		decode(t, rule, &in)
		if _, err := rules.Create(ctx, r.b, in); err != nil {
			t.Fatalf("rule %v: %v", rule, err)
		}
	}
	if rng.IntN(4) == 0 {
		coupon, err := (&loyalty.OfferService{Store: r.db}).Create(ctx, r.b, loyalty.OfferInput{TypeID: loyalty.Some(8),
			Title: loyalty.Some("Free drink")})
		if err != nil {
			t.Fatal(err)
		}
		var in loyalty.PunchCardInput
		decode(t, map[string]any{"name": "Drinks card", "stamps_required": 4, "reward_offer_id": coupon.ID,
			"qualifies": map[string]any{"categories": []int64{cats[0]}}}, &in)
		if _, err := (&loyalty.PunchCardService{Store: r.db}).Save(ctx, r.b, "", in); err != nil {
			t.Fatal(err)
		}
	}
}

// decode turns a body as a client sends it into a service's input.
func decode(tb testing.TB, body any, into any) {
	tb.Helper()
	raw, err := json.Marshal(body)
	if err == nil {
		err = json.Unmarshal(raw, into)
	}
	if err != nil {
		tb.Fatalf("decode %v: %v", body, err)
	}
}

// tick moves the clock and settles what fell due meanwhile (activations
// and expiries), as the scheduler would.
func (r *roadsRun) tick(d time.Duration) {
	r.now = r.now.Add(d)
	setClock(r.db, r.now)
	if _, err := loyalty.SettleDue(ctx, r.db, r.b.ID, r.now, loyalty.SettleOptions{}); err != nil {
		r.t.Fatal(err)
	}
	r.sequence()
}

// sequence numbers the events committed so far, as the sequencer would
// promptly. (The group writer numbers the committed ones of its
// businesses before its own: TestEventsNumberedInCommitOrder.)
func (r *roadsRun) sequence() {
	if _, err := r.db.SequenceEvents(ctx, r.b.ID); err != nil {
		r.t.Fatal(err)
	}
}

// step runs one random operation; a refusal is one of its outcomes.
func (r *roadsRun) step(n int, customers *loyalty.CustomerService) {
	t, rng := r.t, r.rng
	r.tick(time.Duration(1+rng.IntN(600))*time.Second + time.Duration(rng.IntN(3))*time.Duration(rng.IntN(48))*time.Hour)
	who := r.customers[rng.IntN(len(r.customers))]
	amount := func(max int) json.Number { return json.Number(loyalty.Money(1 + rng.IntN(max)).String()) }
	var body map[string]any
	switch k := rng.IntN(20); {
	case k < 5:
		body = map[string]any{"intent": "reward", "amount": amount(9000)}
	case k < 8:
		var items []map[string]any
		for range 1 + rng.IntN(4) {
			items = append(items, map[string]any{"sku": fmt.Sprint("SKU-", rng.IntN(5)), "quantity": 1 + rng.IntN(3),
				"price": amount(1500)})
		}
		body = map[string]any{"intent": "reward", "items": items, "tax": amount(300),
			"channel": []string{"in_store", "online"}[rng.IntN(2)]}
	case k < 9:
		body = map[string]any{"intent": "reward", "points": 1 + rng.IntN(200)}
	case k < 10:
		body = map[string]any{"intent": "reward", "visits": 1 + rng.IntN(3)}
	case k < 13:
		body = map[string]any{"intent": "redeem", "points": 1 + rng.IntN(150)}
	case k < 14:
		body = map[string]any{"intent": "return", "amount": amount(5000)}
	case k < 15:
		body = map[string]any{"intent": "adjust_points_balance", "points": rng.IntN(120) - 60}
	case k < 16 && len(r.entries) > 0:
		_, err := r.svc.Cancel(ctx, r.b, r.entries[rng.IntN(len(r.entries))])
		r.outcome(n, "cancel", err)
		return
	case k < 17 && len(r.baskets) > 0:
		body = map[string]any{"intent": "return", "reverses_id": r.baskets[rng.IntN(len(r.baskets))]}
		if rng.IntN(2) == 0 {
			body["items"] = []map[string]any{{"sku": fmt.Sprint("SKU-", rng.IntN(5)), "quantity": 1}}
		}
	case k < 18 && r.program != 0:
		inv, err := customers.Invitation(ctx, r.program, who)
		if err != nil {
			t.Fatal(err)
		}
		c, err := customers.Join(ctx, inv, loyalty.CustomerInput{Email: loyalty.Some(fmt.Sprintf("referee%d@roads.example", n))})
		if err != nil {
			t.Fatalf("step %d: join: %v", n, err)
		}
		r.customers = append(r.customers, c.ID)
		return
	default:
		body = map[string]any{"intent": "reward", "amount": amount(4000)}
	}
	body["customer"] = map[string]string{"id": who}
	var in loyalty.TransactionInput
	decode(t, body, &in)
	e, _, err := r.svc.Create(ctx, r.b, in, nil)
	if err == nil {
		r.entries = append(r.entries, e.ID)
		if e.Basket != nil && e.Intent == loyalty.IntentReward {
			r.baskets = append(r.baskets, e.ID)
		}
	}
	r.outcome(n, fmt.Sprint(body["intent"]), err)
}

// outcome fails the test on anything but success or a refusal.
func (r *roadsRun) outcome(n int, what string, err error) {
	if err != nil && loyalty.ErrorCode(err) != loyalty.EInvalid {
		r.t.Fatalf("step %d: %s: %v", n, what, err)
	}
}

// snapshot reads what the run left, with every id that depends on the
// road (ledger ids are reserved in blocks by the group writer; lots and
// customers are named by the entries and order that made them) replaced
// by a label the two runs share.
func (r *roadsRun) snapshot() map[string]string {
	t := r.t
	labels := map[string]string{}
	for i, id := range r.customers {
		labels[id] = fmt.Sprintf("c%d", i)
	}
	for _, b := range r.rows(`SELECT id FROM branches WHERE business_id = $1`, labels) {
		labels[b[0]] = "branch"
	}
	// Entries: sorted by what they are, then labelled in that order.
	entries := r.rows(`SELECT id, customer_id, branch_id, intent, type_code, name, amount, points, giftcard, visits, tier_amount,
		tier_points, offer_id, coupon_id, giftcard_id, reverses_id, created_at, pending_points, lot_id
		FROM transactions WHERE business_id = $1`, labels)
	slices.SortFunc(entries, func(a, b []string) int { return strings.Compare(strings.Join(a[1:], "|"), strings.Join(b[1:], "|")) })
	entryLabel := map[string]string{}
	for i, e := range entries {
		entryLabel[e[0]] = fmt.Sprintf("e%d", i)
	}
	lots := r.rows(`SELECT id, entry_id, customer_id, earned, remaining, activates_at, expires_at, notify_at, state
		FROM point_lots WHERE business_id = $1`, labels)
	for _, l := range lots {
		l[1] = relabel(entryLabel, l[1])
	}
	slices.SortFunc(lots, func(a, b []string) int { return strings.Compare(strings.Join(a[1:], "|"), strings.Join(b[1:], "|")) })
	lotLabel := map[string]string{}
	for i, l := range lots {
		lotLabel[l[0]], l[0] = fmt.Sprintf("l%d", i), fmt.Sprintf("l%d", i)
	}
	for _, e := range entries {
		e[0], e[15], e[18] = entryLabel[e[0]], relabel(entryLabel, e[15]), relabel(lotLabel, e[18])
	}
	sortRows(entries)
	uses := r.rows(`SELECT u.entry_id, u.lot_id, u.points FROM point_lot_uses u JOIN point_lots l ON l.id = u.lot_id
		WHERE l.business_id = $1`, labels)
	for _, u := range uses {
		u[0], u[1] = relabel(entryLabel, u[0]), relabel(lotLabel, u[1])
	}
	sortRows(uses)
	baskets := r.rows(`SELECT entry_id, tax, shipping, channel, returns_id FROM baskets WHERE business_id = $1`, labels)
	for _, b := range baskets {
		b[0], b[4] = relabel(entryLabel, b[0]), relabel(entryLabel, b[4])
	}
	sortRows(baskets)
	basketLines := r.rows(`SELECT l.entry_id, l.line, l.sku, p.sku, c.name, l.quantity, l.price, l.discount, l.points
		FROM basket_lines l JOIN baskets b ON b.entry_id = l.entry_id
		LEFT JOIN products p ON p.id = l.product_id LEFT JOIN product_categories c ON c.id = l.category_id
		WHERE b.business_id = $1`, labels)
	for _, l := range basketLines {
		l[0] = relabel(entryLabel, l[0])
	}
	sortRows(basketLines)
	out := map[string]string{
		"entries": joinRows(entries), "lots": joinRows(lots), "lot uses": joinRows(uses),
		"baskets": joinRows(baskets), "basket lines": joinRows(basketLines),
		"punch cards": joinRows(r.rows(`SELECT p.customer_id, p.stamps, p.completed FROM punch_progress p
			JOIN punch_cards c ON c.id = p.card_id WHERE c.business_id = $1`, labels)),
		"balances": joinRows(r.rows(`SELECT user_id, points, giftcard, pending_points, expired_points, tx_count, referral_pending
			FROM customers WHERE business_id = $1`, labels)),
		"activity": joinRows(r.rows(`SELECT user_id, visits_total, spend_total, last_visit_at, last_visit_branch
			FROM customers WHERE business_id = $1`, labels)),
		"tier places": joinRows(r.rows(`SELECT customer_id, level_id, floor_level_id, floor_from, updated_at
			FROM customer_tiers WHERE business_id = $1`, labels)),
		"offer uses": joinRows(r.rows(`SELECT u.customer_id, u.offer_id, u.period, u.used_at FROM offer_uses u JOIN offers o ON o.id = u.offer_id
			WHERE o.business_id = $1`, labels)),
		"referrals": joinRows(r.rows(`SELECT referrer_id, referee_id, created_at, paid_at FROM referrals WHERE business_id = $1`, labels)),
		"rule uses": joinRows(r.rows(`SELECT u.customer_id, e.name, u.period, u.uses FROM earning_rule_uses u
			JOIN earning_rules e ON e.id = u.rule_id WHERE e.business_id = $1`, labels)),
	}
	// Each customer's summary of activity agrees with the ledger it sums.
	if off := r.rows(`SELECT cu.user_id, cu.visits_total, cu.spend_total, cu.last_visit_at, t.v, t.s, t.lv
		FROM customers cu LEFT JOIN (SELECT customer_id, SUM(visits) AS v, SUM(tier_amount) AS s,
			MAX(CASE WHEN visits > 0 THEN created_at END) AS lv FROM transactions WHERE business_id = $1 GROUP BY customer_id) t
			ON t.customer_id = cu.user_id
		WHERE cu.business_id = $1 AND (cu.visits_total <> COALESCE(t.v, 0) OR cu.spend_total <> COALESCE(t.s, 0)
			OR (cu.last_visit_at IS NULL) <> (t.lv IS NULL) OR cu.last_visit_at <> t.lv)`, labels); len(off) > 0 {
		r.t.Errorf("customers whose activity disagrees with their ledger (customer, visits, spend, last visit, then as summed):\n%s", joinRows(off))
	}
	evs, err := loyalty.ReadEvents(ctx, r.db, r.b.ID, loyalty.EventQuery{Limit: 10000})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range evs {
		var data any
		if err := json.Unmarshal(e.Data, &data); err != nil {
			t.Fatalf("event %s: %v", e.ID, err)
		}
		data = relabelJSON(data, labels, entryLabel)
		shown, _ := json.Marshal(data)
		lines = append(lines, fmt.Sprintf("%s %s %s", e.CreatedAt.UTC().Format(time.RFC3339), e.Type, shown))
	}
	// In the order of the changes; within one moment (one settling of
	// many customers' lots, which goes by their random ids) as text.
	slices.Sort(lines)
	out["events"] = strings.Join(lines, "\n")
	return out
}

// rows reads a query of one business as text, customer ids labelled.
func (r *roadsRun) rows(query string, labels map[string]string) [][]string {
	r.t.Helper()
	rows, err := r.db.SQL().QueryContext(ctx, query, r.b.ID)
	if err != nil {
		r.t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			r.t.Fatal(err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = relabel(labels, text(v))
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		r.t.Fatal(err)
	}
	sortRows(out)
	return out
}

// sortRows sorts rows as text.
func sortRows(rows [][]string) {
	slices.SortFunc(rows, func(a, b []string) int { return strings.Compare(strings.Join(a, "|"), strings.Join(b, "|")) })
}

// text is a scanned value as text, times in UTC.
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return string(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case sql.NullTime:
		return text(x.Time)
	}
	return fmt.Sprint(v)
}

// relabel is v's label, or v when it has none.
func relabel(labels map[string]string, v string) string {
	if l, ok := labels[v]; ok {
		return l
	}
	return v
}

// relabelJSON labels the customer and entry ids of an event's data: an
// object with an intent is an entry (id, reverses_id); tier.changed's
// transaction names one.
func relabelJSON(v any, customers, entries map[string]string) any {
	switch x := v.(type) {
	case map[string]any:
		_, entry := x["intent"]
		for k, val := range x {
			if n, ok := val.(float64); ok && entry && (k == "id" || k == "reverses_id") {
				x[k] = relabel(entries, strconv.FormatInt(int64(n), 10))
				continue
			}
			if ref, ok := val.(map[string]any); ok && k == "transaction" {
				// tier.changed names the entry that moved the level
				if n, ok := ref["id"].(float64); ok {
					ref["id"] = relabel(entries, strconv.FormatInt(int64(n), 10))
				}
				continue
			}
			if k == "qrcode" {
				x[k] = "random" // a coupon's code is drawn at random on either road
				continue
			}
			x[k] = relabelJSON(val, customers, entries)
		}
		return x
	case []any:
		for i := range x {
			x[i] = relabelJSON(x[i], customers, entries)
		}
		return x
	case string:
		return relabel(customers, x)
	}
	return v
}

func joinRows(rows [][]string) string {
	lines := make([]string, len(rows))
	for i, r := range rows {
		lines[i] = strings.Join(r, " | ")
	}
	return strings.Join(lines, "\n")
}

// firstDifference shows the first line where two texts differ.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d\n  batched:    %s\n  one by one: %s", i+1, a, b)
		}
	}
	return "(same lines)"
}
