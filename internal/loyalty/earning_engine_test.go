package loyalty

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// replayOfferPoints is how a spend's points were counted before the
// earning engine (the code the engine replaced, kept here as the
// reference): the earning rules' points, the best multiplier in range
// multiplying them, every bonus in range adding; OfferID the multiplier,
// else the first bonus; the limited offers counted.
func replayOfferPoints(rules Rules, amount Money, offers []Offer) (points, offerID int64, once []int64) {
	base := rules.PointsForSpend(amount)
	var best Offer
	bonus := int64(0)
	for _, o := range offers {
		if !o.AppliesTo(amount) {
			continue
		}
		switch o.TypeID {
		case OfferPointsMultiplier:
			if o.MultipFactor > best.MultipFactor {
				best = o
			}
		case OfferBonusPoints:
			bonus += o.Points
			if offerID == 0 {
				offerID = o.ID
			}
			if o.Limited() {
				once = append(once, o.ID)
			}
		}
	}
	points = base
	if best.ID != 0 && best.MultipFactor > 100 {
		points = base * int64(best.MultipFactor) / 100
		offerID = best.ID
		if best.Limited() {
			once = append(once, best.ID)
		}
	}
	return points + bonus, offerID, once
}

// TestEngineReplaysOfferEarning: for random programs (ratio, milestone,
// rounding) and random multiplier and bonus offers (factors, points,
// purchase ranges, frequencies), with no earning rules, the engine earns
// exactly what the code before it did, names the same offer and counts
// the same limited offers, with and without a basket of the same total.
func TestEngineReplaysOfferEarning(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 3))
	for i := range 5000 {
		rules := Rules{RewardRatio: int64(rng.IntN(5)), RewardMilestoneAmount: Money(1 + rng.IntN(2000)), RoundUpPoints: rng.IntN(2) == 0}
		var offers []Offer
		for j := range rng.IntN(5) {
			o := Offer{ID: int64(j + 1), Frequency: []int{0, OfferOnce, OfferDaily, OfferWeekly}[rng.IntN(4)]}
			if rng.IntN(2) == 0 {
				o.TypeID, o.MultipFactor = OfferPointsMultiplier, Money(50+rng.IntN(400))
			} else {
				o.TypeID, o.Points = OfferBonusPoints, int64(rng.IntN(100))
			}
			if rng.IntN(3) == 0 {
				o.MinPurchase = Money(rng.IntN(5000))
			}
			if rng.IntN(3) == 0 {
				o.MaxPurchase = o.MinPurchase + Money(rng.IntN(5000))
			}
			offers = append(offers, o)
		}
		amount := Money(rng.IntN(20000))
		wantPoints, wantOffer, wantOnce := replayOfferPoints(rules, amount, offers)
		e := &Transaction{Amount: amount, CreatedAt: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
		if rng.IntN(2) == 0 && amount > 0 {
			// The same total as a basket of two lines.
			half := amount / 2
			e.Basket = &Basket{Lines: []BasketLine{{SKU: "A", Quantity: 1, Price: half}, {SKU: "B", Quantity: 1, Price: amount - half}}}
		}
		got := (&program{rules: rules, offers: offers}).evaluate(newSale(e, time.UTC, "", DefaultExclusions()), i%2 == 0)
		var gotOnce []int64
		for _, o := range got.Limited {
			gotOnce = append(gotOnce, o.ID)
		}
		slices.Sort(wantOnce)
		slices.Sort(gotOnce)
		if got.Points != wantPoints || got.OfferID != wantOffer || !slices.Equal(gotOnce, wantOnce) {
			t.Fatalf("case %d: rules %+v, amount %v, offers %+v: engine %d points, offer %d, limited %v; before %d, %d, %v",
				i, rules, amount, offers, got.Points, got.OfferID, gotOnce, wantPoints, wantOffer, wantOnce)
		}
	}
}

// TestScheduleAcrossMidnightAndDST: a schedule is local time in the
// business's zone, also on the days the clocks change, and a window past
// midnight belongs to the day it opens.
func TestScheduleAcrossMidnightAndDST(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no time zone data")
	}
	local := func(s string) time.Time {
		tm, err := time.ParseInLocation("2006-01-02 15:04", s, ny)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	night := RuleSchedule{Days: []int{6}, From: "22:00", To: "02:00"} // Saturday night
	morning := RuleSchedule{Days: []int{7}, From: "01:00", To: "04:00"}
	for _, c := range []struct {
		s    RuleSchedule
		at   string
		want bool
	}{
		{night, "2026-03-07 22:00", true},  // Saturday, before the spring change
		{night, "2026-03-08 01:59", true},  // Sunday, still Saturday's window
		{night, "2026-03-08 03:30", false}, // the clocks went from 02:00 to 03:00
		{night, "2026-03-08 22:30", false}, // Sunday night
		{night, "2026-03-07 21:59", false},
		{morning, "2026-03-08 01:30", true}, // EST
		{morning, "2026-03-08 03:30", true}, // EDT, same window
		{morning, "2026-03-08 04:00", false},
		{morning, "2026-11-01 01:30", true}, // the autumn change: 01:30 happens twice
		{RuleSchedule{From: "09:00", To: "17:00"}, "2026-11-04 16:59", true},
		{RuleSchedule{From: "09:00", To: "17:00"}, "2026-11-04 17:00", false},
		{RuleSchedule{Days: []int{1, 2}}, "2026-11-03 23:59", true},  // Tuesday
		{RuleSchedule{Days: []int{1, 2}}, "2026-11-04 00:00", false}, // Wednesday
	} {
		if got := c.s.InSchedule(local(c.at), ny); got != c.want {
			t.Errorf("%+v at %s (New York): %v, want %v", c.s, c.at, got, c.want)
		}
	}
	// The second 01:30 of the autumn change, an hour after the first.
	second := local("2026-11-01 01:30").Add(time.Hour)
	if second.In(ny).Format("15:04") != "01:30" || !morning.InSchedule(second, ny) {
		t.Errorf("the second 01:30 of 2026-11-01 (%v) is not in the Sunday 01:00–04:00 window", second.In(ny))
	}
}

// TestEngineMultipliersDoNotStack: each line goes to the best multiplier
// covering it; a multiplier left with no line is outranked, and the
// points it would have given are not given.
func TestEngineMultipliersDoNotStack(t *testing.T) {
	rules := Rules{RewardRatio: 1, RewardMilestoneAmount: 100}
	drinks := EarningRule{ID: 1, Name: "Drinks ×3", Enabled: true, Conditions: RuleConditions{Categories: []int64{7}},
		Effect: RuleEffect{Type: EffectMultiplier, Factor: 300}}
	all := EarningRule{ID: 2, Name: "All ×2", Enabled: true, Effect: RuleEffect{Type: EffectMultiplier, Factor: 200}}
	low := EarningRule{ID: 3, Name: "All ×1.5", Enabled: true, Effect: RuleEffect{Type: EffectMultiplier, Factor: 150}}
	e := &Transaction{Amount: 1500, CreatedAt: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC), Basket: &Basket{Lines: []BasketLine{
		{SKU: "CF", Quantity: 2, Price: 400, CategoryID: 7}, {SKU: "MU", Quantity: 1, Price: 700}}}}
	got := (&program{rules: rules, earning: []EarningRule{drinks, all, low}}).evaluate(newSale(e, time.UTC, "", DefaultExclusions()), true)
	// 15 base; the coffees (8) tripled: +16; the muffin (7) doubled: +7.
	if got.Points != 38 {
		t.Errorf("points %d, want 38", got.Points)
	}
	if len(got.NotApplied) != 1 || got.NotApplied[0].RuleID != "rule-3" || got.NotApplied[0].Reason != "a better multiplier applies" {
		t.Errorf("not applied %+v, want the ×1.5 rule outranked", got.NotApplied)
	}
}

// randomProgram is a program of up to 12 random earning rules over
// categories 1 and 2 and products 1 to 4.
func randomProgram(rng *rand.Rand) program {
	p := program{rules: Rules{RewardRatio: int64(1 + rng.IntN(3)), RewardMilestoneAmount: Money(50 + rng.IntN(200))}}
	for i := range rng.IntN(12) {
		r := EarningRule{ID: int64(i + 1), Name: "r", Enabled: rng.IntN(8) > 0, Priority: rng.IntN(5) - 2, Exclusive: rng.IntN(10) == 0}
		switch rng.IntN(4) {
		case 0:
			r.Effect = RuleEffect{Type: EffectPointsPerAmount, Points: int64(1 + rng.IntN(5)), PerAmount: Money(100 + rng.IntN(500)), RoundUp: rng.IntN(2) == 0}
		case 1:
			r.Effect = RuleEffect{Type: EffectMultiplier, Factor: Money(110 + rng.IntN(300))}
		case 2:
			r.Effect = RuleEffect{Type: EffectBonus, Points: int64(1 + rng.IntN(50))}
		case 3:
			r.Effect = RuleEffect{Type: EffectPointsPerItem, Points: int64(1 + rng.IntN(10))}
		}
		switch rng.IntN(4) {
		case 0:
			r.Conditions.Categories = []int64{int64(1 + rng.IntN(2))}
		case 1:
			r.Conditions.Products = []int64{int64(1 + rng.IntN(4))}
		case 2:
			r.Conditions.MinAmount = Money(rng.IntN(3000))
		}
		p.earning = append(p.earning, r)
	}
	return p
}

// randomBasket is a reward of 1 to 6 random lines of products 1 to 4 (or
// unknown), with tax and shipping.
func randomBasket(rng *rand.Rand) *Transaction {
	b := &Basket{Tax: Money(rng.IntN(300)), Shipping: Money(rng.IntN(500))}
	for range 1 + rng.IntN(6) {
		l := BasketLine{SKU: "x", Quantity: int64(1 + rng.IntN(4)), Price: Money(rng.IntN(1500))}
		if id := rng.IntN(5); id > 0 {
			l.ProductID, l.CategoryID = int64(id), int64(1+id%2)
		}
		l.Discount = Money(rng.IntN(int(l.Price)*int(l.Quantity)/4 + 1))
		b.Lines = append(b.Lines, l)
	}
	return &Transaction{Amount: b.Total(), Basket: b, CreatedAt: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
}

// TestEngineAttributesEveryPoint: over random programs and baskets, the
// lines' shares add up to the sale's points, all of them when tax and
// shipping earn nothing and no more when they do, none negative.
func TestEngineAttributesEveryPoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 6))
	for i := range 3000 {
		p := randomProgram(rng)
		e := randomBasket(rng)
		x := DefaultExclusions()
		x.Tax, x.Shipping, x.Discounts = rng.IntN(2) == 0, rng.IntN(2) == 0, rng.IntN(2) == 0
		got := p.evaluate(newSale(e, time.UTC, "", x), false)
		var sum int64
		for _, lp := range got.LinePoints {
			if lp < 0 {
				t.Fatalf("case %d: a line's share is %d", i, lp)
			}
			sum += lp
		}
		if len(got.LinePoints) != len(e.Basket.Lines) || sum > got.Points || (x.Tax && x.Shipping && sum != got.Points) {
			t.Fatalf("case %d: the lines' shares %v add to %d of %d points (tax excluded %v, shipping %v)", i, got.LinePoints, sum,
				got.Points, x.Tax, x.Shipping)
		}
	}
}

// TestReturnsTakeBackExactly: returning a random sale's units in random
// steps takes back, line by line, exactly the line's share, and in all
// exactly the sale's points; no step takes back more than its units
// earned, and a unit more than was bought is refused.
func TestReturnsTakeBackExactly(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 7))
	for i := range 2000 {
		p := randomProgram(rng)
		e := randomBasket(rng)
		got := p.evaluate(newSale(e, time.UTC, "", DefaultExclusions()), false)
		orig := Transaction{ID: 1, Intent: IntentReward, Points: got.Points, Amount: e.Amount}
		sold := &Basket{}
		for j, l := range e.Basket.Lines {
			l.SKU, l.Points, l.Line = "S"+itoa(j), got.LinePoints[j], j+1
			sold.Lines = append(sold.Lines, l)
		}
		before := map[int64]*Basket{}
		var points int64
		var amount Money
		for step := int64(2); ; step++ {
			want := &Basket{}
			for j, l := range sold.Lines {
				if rng.IntN(2) == 0 {
					want.Lines = append(want.Lines, BasketLine{SKU: "S" + itoa(j), Quantity: 1 + rng.Int64N(l.Quantity)})
				}
			}
			want.ReturnsAll = len(want.Lines) == 0 || step > 6
			if want.ReturnsAll {
				want.Lines = nil
			}
			plan, err := planReturn(orig, sold, before, want)
			if ErrorCode(err) == EInvalid && !want.ReturnsAll {
				continue // more units than remain: refused, nothing taken
			}
			if ErrorCode(err) == EInvalid && points == orig.Points && amount == orig.Amount {
				break // every unit was returned by the steps before
			}
			if err != nil {
				t.Fatalf("case %d step %d: %v", i, step, err)
			}
			for _, l := range plan.basket.Lines {
				if l.Points < 0 || l.Points > sold.Lines[l.Line-1].Points {
					t.Fatalf("case %d: a return of %d units took %d of a line that earned %d", i, l.Quantity, l.Points, sold.Lines[l.Line-1].Points)
				}
			}
			points += plan.points
			amount += plan.amount
			before[step] = plan.basket
			if want.ReturnsAll {
				break
			}
		}
		if points != orig.Points || amount != orig.Amount {
			t.Fatalf("case %d: the returns took back %d points of %d, %v of %v", i, points, orig.Points, amount, orig.Amount)
		}
		if _, err := planReturn(orig, sold, before, &Basket{ReturnsAll: true}); ErrorCode(err) != EInvalid {
			t.Fatalf("case %d: a return after every unit was returned: %v", i, err)
		}
	}
}

// TestEngineCampaignRule: a rule kept to a campaign's recipients applies
// to a customer the campaign reached, from that moment for its days and
// not after, not before, and not to one it did not reach; it counts a use
// (for the campaign's report) and says why it did not apply.
func TestEngineCampaignRule(t *testing.T) {
	reached := time.Date(2026, 3, 10, 9, 30, 0, 0, time.UTC)
	rule := EarningRule{ID: 4, Name: "Comeback ×2", Enabled: true, Conditions: RuleConditions{CampaignID: 7, CampaignDays: 7},
		Effect: RuleEffect{Type: EffectMultiplier, Factor: 200}}
	if !rule.Conditions.onCustomer() || !rule.limited() {
		t.Fatal("a campaign rule asks about the customer and records its use")
	}
	for _, c := range []struct {
		name    string
		reached map[int64]time.Time
		at      time.Time
		points  int64
		why     string
	}{
		{"at the moment reached", map[int64]time.Time{7: reached}, reached, 20, ""},
		{"six days later", map[int64]time.Time{7: reached}, reached.AddDate(0, 0, 6), 20, ""},
		{"seven days later", map[int64]time.Time{7: reached}, reached.AddDate(0, 0, 7), 10, "not within 7 days of its campaign reaching the customer"},
		{"before being reached", map[int64]time.Time{7: reached}, reached.Add(-time.Second), 10, "not within 7 days of its campaign reaching the customer"},
		{"reached by another campaign", map[int64]time.Time{8: reached}, reached.Add(time.Hour), 10, "the customer is not one its campaign reached"},
		{"never reached", nil, reached.Add(time.Hour), 10, "the customer is not one its campaign reached"},
	} {
		e := &Transaction{Amount: 1000, CreatedAt: c.at}
		p := program{rules: Rules{RewardRatio: 1, RewardMilestoneAmount: 100}, earning: []EarningRule{rule}, customer: "cu",
			facts: CustomerFacts{Reached: c.reached}}
		got := p.evaluate(newSale(e, time.UTC, "", DefaultExclusions()), true)
		if got.Points != c.points {
			t.Errorf("%s: %d points, want %d", c.name, got.Points, c.points)
		}
		if applied := len(got.Takes) == 1; applied != (c.why == "") {
			t.Errorf("%s: takes %+v", c.name, got.Takes)
		}
		if c.why != "" && (len(got.NotApplied) != 1 || got.NotApplied[0].Reason != c.why) {
			t.Errorf("%s: not applied %+v, want %q", c.name, got.NotApplied, c.why)
		}
	}
}

// BenchmarkEngine50Rules: the engine alone deciding a 5-item basket over
// 50 earning rules of every kind (cmd/loadtest's rules site), explaining,
// with the rules compiled as a business's state keeps them.
func BenchmarkEngine50Rules(b *testing.B) {
	var list []EarningRule
	for i := range 50 {
		r := EarningRule{ID: int64(i + 1), Name: "Rule " + itoa(i), Enabled: true}
		switch i % 5 {
		case 0:
			r.Effect, r.Conditions.Categories = RuleEffect{Type: EffectMultiplier, Factor: Money(150 + 50*(i%4))}, []int64{1}
			r.Schedule = RuleSchedule{From: "00:00", To: "23:59"}
		case 1:
			r.Effect, r.Conditions.Products = RuleEffect{Type: EffectPointsPerItem, Points: 1}, []int64{int64(1 + i%5)}
		case 2:
			r.Effect, r.Conditions.MinAmount = RuleEffect{Type: EffectBonus, Points: 5}, 100000
		case 3:
			r.Effect, r.Conditions.Channels = RuleEffect{Type: EffectBonus, Points: 1}, []string{"online"}
		case 4:
			r.Effect, r.Conditions.Categories, r.Priority = RuleEffect{Type: EffectPointsPerAmount, Points: 1, PerAmount: 1000}, []int64{2}, -1
		}
		list = append(list, r)
	}
	st := BusinessState{}
	st.SetEarningRules(list)
	p := program{rules: Rules{RewardRatio: 1, RewardMilestoneAmount: 100}, earning: list, book: st.book, customer: "cu"}
	e := &Transaction{CreatedAt: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC), Basket: &Basket{Channel: "in_store", Tax: 140, Lines: []BasketLine{
		{Quantity: 2, Price: 350, ProductID: 1, CategoryID: 1}, {Quantity: 1, Price: 425, ProductID: 2, CategoryID: 2},
		{Quantity: 1, Price: 200, ProductID: 3, CategoryID: 1}, {Quantity: 3, Price: 120, Discount: 30, ProductID: 4, CategoryID: 2},
		{Quantity: 1, Price: 600, ProductID: 5, CategoryID: 1}}}}
	for b.Loop() {
		p.evaluate(newSale(e, time.UTC, "", DefaultExclusions()), true)
	}
}
