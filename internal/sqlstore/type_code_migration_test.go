package sqlstore_test

import (
	"encoding/json"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// oldType is what an entry of each type code was before 00033 gave the
// reference's codes (docs/transaction-types.md has the same table).
var oldType = map[int]struct {
	code int
	name string
}{
	4: {4, "Reward"}, 5: {5, "Redeem"}, 43: {5, "Redemption"}, 64: {6, "Return"},
	80: {7, "Adjustment"}, 82: {7, "Adjustment"}, 74: {8, "Get Coupon"}, 91: {8, "Get Coupon"},
	75: {9, "Claim Coupon"}, 92: {9, "Claim Coupon"}, 85: {10, "Gift Card Purchase"}, 88: {11, "Gift Card Payment"},
	1012: {12, "Store Credit"}, 76: {13, "Referral Reward"}, 77: {13, "Referral Reward"}, 33: {14, "Welcome Points"},
	44: {15, "Cancellation"}, 107: {16, "Refund Redeemed Points"}, 1017: {17, "Points Activated"}, 1018: {18, "Points Expired"},
}

// typedEntry is one ledger row's kind as stored.
type typedEntry struct {
	ID       int64
	Customer string
	Code     int
	Name     string
}

// typedEntries returns a business's ledger, oldest first.
func typedEntries(tb testing.TB, db *sqlstore.DB, businessID string) []typedEntry {
	tb.Helper()
	rows, err := db.SQL().QueryContext(ctx, `SELECT id, customer_id, type_code, name FROM transactions
		WHERE business_id = $1 ORDER BY id`, businessID)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var out []typedEntry
	for rows.Next() {
		var e typedEntry
		if err := rows.Scan(&e.ID, &e.Customer, &e.Code, &e.Name); err != nil {
			tb.Fatal(err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// decodeInput reads a domain input from its JSON body, as the API does.
func decodeInput[T any](tb testing.TB, body string) T {
	tb.Helper()
	var in T
	if err := json.Unmarshal([]byte(body), &in); err != nil {
		tb.Fatalf("%s: %v", body, err)
	}
	return in
}

// TestReferenceTypeCodesMigration writes an entry of every kind the
// service writes, goes down to before 00033 and up again. Down, each entry
// has the code and name its kind had before; up again, each has its
// kind's code and name back, which the up migration could only work out
// from what each entry did: a catalog or a points redemption, an
// adjustment up or down, a convertible coupon or not, and which side of a
// referral was paid, including a customer who was paid as a referrer
// before being paid as a referee.
func TestReferenceTypeCodesMigration(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		biz := createBusiness(t, db, "").BusinessID
		start := time.Date(2026, time.March, 2, 9, 0, 0, 0, time.UTC)
		step := 0
		tick := func() { step++; setClock(db, start.Add(time.Duration(step)*time.Minute)) }
		tick()
		b, err := db.Business(ctx, biz)
		if err != nil {
			t.Fatal(err)
		}
		svc := &loyalty.TransactionService{Store: db, Customers: &loyalty.CustomerService{Store: db}}
		if _, err := svc.UpdateRules(ctx, b, decodeInput[loyalty.RulesInput](t, `{"welcome_points": 10}`)); err != nil {
			t.Fatal(err)
		}
		prog, err := (&loyalty.ReferralProgramService{Store: db}).Create(ctx, b,
			decodeInput[loyalty.ReferralProgramInput](t, `{"cond_min_amount": 10, "referee_earns": 50, "referer_earns": 100, "expires_in": 30}`))
		if err != nil {
			t.Fatal(err)
		}
		item, err := (&loyalty.RewardService{Store: db}).Create(ctx, b, decodeInput[loyalty.RewardInput](t, `{"kind": "catalog_item", "title": "Mug", "points": 20}`))
		if err != nil {
			t.Fatal(err)
		}
		offers := &loyalty.OfferService{Store: db}
		regular, err := offers.Create(ctx, b, decodeInput[loyalty.OfferInput](t, `{"type_id": 9, "title": "10% off", "discount_value": 10}`))
		if err != nil {
			t.Fatal(err)
		}
		convertible, err := offers.Create(ctx, b, decodeInput[loyalty.OfferInput](t,
			`{"type_id": 10, "title": "$5 off", "discount_value": 5, "convertible": true, "points": 5}`))
		if err != nil {
			t.Fatal(err)
		}

		// ann refers bob, bob refers cat, ann refers dan. cat's reward pays
		// bob as referrer before bob's own reward pays him as referee; dan
		// is paid through the reward_referral intent.
		ann := createCustomer(t, db, biz, loyalty.CustomerInput{Email: loyalty.Some("ann@types.example")})
		tick()
		bob := referredCustomer(t, db, biz, "bob@types.example", prog.ID, ann.ID)
		tick()
		cat := referredCustomer(t, db, biz, "cat@types.example", prog.ID, bob.ID)
		tick()
		dan := referredCustomer(t, db, biz, "dan@types.example", prog.ID, ann.ID)
		do := func(customer, body string) loyalty.Transaction {
			t.Helper()
			tick()
			in := decodeInput[loyalty.TransactionInput](t, body)
			in.Customer = loyalty.Some(loyalty.CustomerRef{ID: loyalty.Some(customer)})
			e, _, err := svc.Create(ctx, b, in, nil)
			if err != nil {
				t.Fatalf("%s: %v", body, err)
			}
			return e
		}
		do(cat.ID, `{"intent": "reward", "amount": 20}`)
		do(bob.ID, `{"intent": "reward", "amount": 20}`)
		do(dan.ID, `{"intent": "reward_referral", "amount": 20}`)
		reward := do(ann.ID, `{"intent": "reward", "points": 500}`)
		do(ann.ID, `{"intent": "redeem", "points": 10}`)
		do(ann.ID, `{"intent": "redeem", "catalog_items": [{"id": `+strconv.FormatInt(item.ID, 10)+`}]}`)
		do(ann.ID, `{"intent": "return", "amount": 5}`)
		do(ann.ID, `{"intent": "adjust_points_balance", "points": 7}`)
		do(ann.ID, `{"intent": "adjust_points_balance", "points": -3}`)
		c74 := do(ann.ID, `{"intent": "get_coupon", "offer": {"id": `+strconv.FormatInt(regular.ID, 10)+`}}`).CouponID
		do(ann.ID, `{"intent": "claim_coupon", "coupon": {"id": `+strconv.FormatInt(c74, 10)+`}}`)
		c91 := do(ann.ID, `{"intent": "get_coupon", "offer": {"id": `+strconv.FormatInt(convertible.ID, 10)+`}}`).CouponID
		do(ann.ID, `{"intent": "claim_coupon", "coupon": {"id": `+strconv.FormatInt(c91, 10)+`}}`)
		do(ann.ID, `{"intent": "purchase_giftcard_prepaid", "amount": 30}`)
		do(ann.ID, `{"intent": "giftcard_payment", "amount": 5}`)
		do(ann.ID, `{"intent": "reward_store_credit", "amount": 5}`)
		do(ann.ID, `{"intent": "refund_redeemed_points", "points": 4}`)
		tick()
		if _, err := svc.Cancel(ctx, b, reward.ID); err != nil {
			t.Fatal(err)
		}
		// The points scheduler's entries, as it writes them (its own tests
		// run it; here only their codes matter).
		for _, intent := range []string{loyalty.IntentActivation, loyalty.IntentExpiry} {
			e := loyalty.NewLotEntry(biz, ann.ID, intent, 0, db.Now())
			if _, err := db.SQL().ExecContext(ctx, `INSERT INTO transactions (business_id, customer_id, intent, type_code, name, created_at)
				VALUES ($1, $2, $3, $4, $5, $6)`, biz, ann.ID, e.Intent, e.TypeCode, e.Name, e.CreatedAt); err != nil {
				t.Fatal(err)
			}
		}

		now := typedEntries(t, db, biz)
		var codes []int
		for _, e := range now {
			if e.Name != loyalty.TypeName(e.Code) {
				t.Errorf("entry %d: code %d named %q, want %q", e.ID, e.Code, e.Name, loyalty.TypeName(e.Code))
			}
			if !slices.Contains(codes, e.Code) {
				codes = append(codes, e.Code)
			}
		}
		// Kinds added after 00033 (transfers, 00051) never were in a ledger
		// at 32, whose codes this test takes down and up again.
		all := slices.DeleteFunc(loyalty.TypeCodes(), func(c int) bool {
			return c == loyalty.TypeCodeTransferSent || c == loyalty.TypeCodeTransferReceived
		})
		slices.Sort(codes)
		slices.Sort(all)
		if !slices.Equal(codes, all) {
			t.Fatalf("the ledger has the codes %v, want every kind %v", codes, all)
		}
		sides := func(es []typedEntry, who string) (out []int) {
			for _, e := range es {
				if e.Customer == who && (e.Code == 76 || e.Code == 77 || e.Code == 13) {
					out = append(out, e.Code)
				}
			}
			return out
		}
		if got := sides(now, bob.ID); !slices.Equal(got, []int{77, 76}) {
			t.Errorf("bob's referral entries %v, want referrer then referee (77, 76)", got)
		}
		if got := sides(now, ann.ID); !slices.Equal(got, []int{77, 77}) {
			t.Errorf("ann's referral entries %v, want two as referrer", got)
		}

		if err := db.MigrateDownTo(ctx, 32); err != nil {
			t.Fatal(err)
		}
		for i, e := range typedEntries(t, db, biz) {
			if want := oldType[now[i].Code]; e.Code != want.code || e.Name != want.name {
				t.Errorf("down: entry %d (now %d %q) is %d %q, want %d %q", e.ID, now[i].Code, now[i].Name, e.Code, e.Name, want.code, want.name)
			}
		}
		if _, err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		if got := typedEntries(t, db, biz); !slices.Equal(got, now) {
			for i := range got {
				if i < len(now) && got[i] != now[i] {
					t.Errorf("up again: entry %d is %d %q, was %d %q", got[i].ID, got[i].Code, got[i].Name, now[i].Code, now[i].Name)
				}
			}
		}
	})
}
