package loyalty_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// world is a migrated store on one engine with the customer service on it.
type world struct {
	ctx context.Context
	db  *sqlstore.DB
	svc *loyalty.CustomerService
}

// eachEngine runs fn once per database engine, each time on a fresh store.
func eachEngine(t *testing.T, fn func(t *testing.T, w *world)) {
	t.Helper()
	for _, engine := range testenv.Engines() {
		t.Run(engine, func(t *testing.T) {
			db := testenv.Open(t, engine)
			fn(t, &world{ctx: context.Background(), db: db, svc: &loyalty.CustomerService{Store: db}})
		})
	}
}

// business creates a business in country and returns it as the store reads it.
func (w *world) business(tb testing.TB, country string) loyalty.Business {
	tb.Helper()
	id := loyalty.NewID()
	cb, err := w.db.CreateBusiness(w.ctx, loyalty.NewBusiness{
		Name: "Shop " + id[24:], LoyaltyType: loyalty.PerSpend, Country: country,
		OwnerEmail: "owner-" + id + "@shop.example", OwnerPassword: "not used here",
	}, "$argon2id$not-a-real-hash", "key-"+id)
	if err != nil {
		tb.Fatalf("CreateBusiness: %v", err)
	}
	b, err := w.db.Business(w.ctx, cb.BusinessID)
	if err != nil {
		tb.Fatalf("Business: %v", err)
	}
	return b
}

// person reads the person's own record (not a business's profile) by e-mail.
func (w *world) person(tb testing.TB, email string) loyalty.User {
	tb.Helper()
	var u loyalty.User
	err := w.db.WithTx(w.ctx, func(tx loyalty.Tx) error {
		var err error
		u, err = tx.UserByEmail(w.ctx, email)
		return err
	})
	if err != nil {
		tb.Fatalf("person %s: %v", email, err)
	}
	return u
}

// noPerson fails the test if a person has the e-mail.
func (w *world) noPerson(tb testing.TB, email string) {
	tb.Helper()
	err := w.db.WithTx(w.ctx, func(tx loyalty.Tx) error {
		_, err := tx.UserByEmail(w.ctx, email)
		return err
	})
	if loyalty.ErrorCode(err) != loyalty.ENotFound {
		tb.Errorf("person %s: %v, want none", email, err)
	}
}

// input decodes a JSON body the way the HTTP layer does.
func input(tb testing.TB, body string) loyalty.CustomerInput {
	tb.Helper()
	return decodeInput(tb, body)
}

// create adds a customer and fails the test on error.
func (w *world) create(tb testing.TB, b loyalty.Business, body string) loyalty.Customer {
	tb.Helper()
	c, err := w.svc.Create(w.ctx, b, input(tb, body))
	if err != nil {
		tb.Fatalf("Create %s: %v", body, err)
	}
	return c
}

// get reads a customer back from the store and fails the test on error.
func (w *world) get(tb testing.TB, b loyalty.Business, id string) loyalty.Customer {
	tb.Helper()
	c, err := w.svc.Get(w.ctx, b, id)
	if err != nil {
		tb.Fatalf("Get %s: %v", id, err)
	}
	return c
}

// count returns how many active customers the business has.
func (w *world) count(tb testing.TB, b loyalty.Business) int {
	tb.Helper()
	_, total, err := w.db.Customers(w.ctx, b.ID, loyalty.ListQuery{Page: 1, PerPage: 100})
	if err != nil {
		tb.Fatalf("Customers: %v", err)
	}
	return total
}

// referralProgram inserts a referral program and returns its id.
func (w *world) referralProgram(tb testing.TB, b loyalty.Business, enabled bool) int64 {
	tb.Helper()
	now := time.Now().UTC().Truncate(time.Second)
	var id int64
	err := w.db.SQL().QueryRowContext(w.ctx, `INSERT INTO referral_programs
		(business_id, rule_name, cond_min_amount, referee_earns, referer_earns, expires_in, enabled, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
		b.ID, "Bring a friend", 1000, 50, 100, 30, enabled, now, now).Scan(&id)
	if err != nil {
		tb.Fatalf("insert referral program: %v", err)
	}
	return id
}

// referrals returns the referrer of each referee of the business.
func (w *world) referrals(tb testing.TB, b loyalty.Business) map[string]string {
	tb.Helper()
	rows, err := w.db.SQL().QueryContext(w.ctx, `SELECT referee_id, referrer_id FROM referrals WHERE business_id = $1`, b.ID)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var referee, referrer string
		if err := rows.Scan(&referee, &referrer); err != nil {
			tb.Fatal(err)
		}
		out[referee] = referrer
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

func referralBody(email string, programID int64, referrerID string) string {
	ref, _ := json.Marshal(map[string]any{"referral_program_id": programID, "referrer_id": referrerID})
	return `{"email":"` + email + `","referral":` + string(ref) + `}`
}

func TestCustomerCreateAndGet(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "US")
		fixed := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
		w.db.Clock = func() time.Time { return fixed.Add(123 * time.Millisecond) }
		c := w.create(t, b, `{"email":" Ann.Lee@Example.COM ","phone":"(650) 253-0000","country_code":"us",
			"first_name":" Ann ","last_name":"Lee","birth_date":"1990-05-17","language":"fr","gender":"female",
			"address":{"street":"1 Main St","city":"Springfield","country_code":"us","lat":45.5,"long":-73.25}}`)
		if !loyalty.ValidID(c.ID) {
			t.Errorf("id %q is not a valid id", c.ID)
		}
		got := w.get(t, b, c.ID)
		want := loyalty.User{ID: c.ID, Email: "ann.lee@example.com", Phone: "+16502530000", CountryCode: "US",
			FirstName: "Ann", LastName: "Lee", BirthDate: "1990-05-17", Language: "fr", Gender: "female",
			CreatedAt: fixed, UpdatedAt: fixed}
		if u := got.User; !u.CreatedAt.Equal(want.CreatedAt) || !u.UpdatedAt.Equal(want.UpdatedAt) {
			t.Errorf("user times %v / %v, want %v", u.CreatedAt, u.UpdatedAt, fixed)
		} else {
			u.CreatedAt, u.UpdatedAt = want.CreatedAt, want.UpdatedAt
			if u != want {
				t.Errorf("stored user\n got %+v\nwant %+v", u, want)
			}
		}
		if got.BusinessID != b.ID || !got.Enabled || got.Deleted || !got.CreatedAt.Equal(fixed) {
			t.Errorf("membership: business %q enabled %v deleted %v created %v", got.BusinessID, got.Enabled, got.Deleted, got.CreatedAt)
		}
		a := got.Address
		if a.Street != "1 Main St" || a.City != "Springfield" || a.CountryCode != "US" ||
			a.Lat == nil || *a.Lat != 45.5 || a.Long == nil || *a.Long != -73.25 {
			t.Errorf("address = %+v", a)
		}
		if got.Balance != (loyalty.Balance{}) {
			t.Errorf("a new customer has balance %+v, want zero", got.Balance)
		}

		// Phone alone, in international form, gives the country from the number.
		p := w.create(t, b, `{"phone":"+44 20 7031 3000","enabled":false}`)
		if got := w.get(t, b, p.ID); got.Phone != "+442070313000" || got.CountryCode != "GB" || got.Email != "" || got.Enabled {
			t.Errorf("phone-only customer = %+v", got)
		}
	})
}

func TestCustomerCreateValidation(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "US")
		for _, c := range []struct {
			body   string
			fields []string
		}{
			{`{}`, []string{"email", "phone"}},
			{`{"first_name":"Ann"}`, []string{"email", "phone"}},
			{`{"email":"","phone":null}`, []string{"email", "phone"}},
			{`{"email":"not-an-email"}`, []string{"email"}},
			{`{"phone":"6502530000"}`, []string{"country_code"}},
			{`{"phone":"12","country_code":"US"}`, []string{"phone"}},
			{`{"phone":"6502530000","country_code":"XX"}`, []string{"country_code"}},
			{`{"email":"a@x.io","language":"de","gender":"other"}`, []string{"language", "gender"}},
			{`{"email":"a@x.io","birth_date":"2999-01-01"}`, []string{"birth_date"}},
			{`{"email":"a@x.io","birth_date":"17/05/1990"}`, []string{"birth_date"}},
			{`{"email":"a@x.io","first_name":"` + strings.Repeat("n", 101) + `"}`, []string{"first_name"}},
			{`{"email":"a@x.io","address":{"lat":91}}`, []string{"address.lat"}},
			{`{"email":"a@x.io","address":{"country_code":"XX"}}`, []string{"address.country_code"}},
			{`{"email":"a@x.io","referral":{}}`, []string{"referral.referral_program_id", "referral.referrer_id"}},
			{`{"email":"a@x.io","referral":{"referral_program_id":1,"referrer_id":"bob"}}`, []string{"referral.referrer_id"}},
		} {
			_, err := w.svc.Create(w.ctx, b, input(t, c.body))
			fields := invalidFields(t, err)
			for _, f := range c.fields {
				if len(fields[f]) == 0 {
					t.Errorf("%s: error %v does not name %q", c.body, err, f)
				}
			}
		}
		if n := w.count(t, b); n != 0 {
			t.Errorf("refused creations left %d customers", n)
		}
	})
}

func TestCustomerSecondBusinessKeepsItsOwnProfile(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		a, b := w.business(t, "US"), w.business(t, "CA")
		first := w.create(t, a, `{"email":"ann@example.com","first_name":"Ann"}`)
		second := w.create(t, b, `{"email":"ANN@example.com","phone":"(416) 979-1234","country_code":"CA",
			"first_name":"Annie","last_name":"Lee","language":"fr"}`)
		if second.ID != first.ID {
			t.Fatalf("the same person got a second id: %s, then %s", first.ID, second.ID)
		}
		if got := w.get(t, a, first.ID); got.FirstName != "Ann" || got.LastName != "" || got.Phone != "" || got.Language != "" {
			t.Errorf("the first business sees what the second wrote: %+v", got.User)
		}
		if got := w.get(t, b, first.ID); got.FirstName != "Annie" || got.LastName != "Lee" || got.Phone != "+14169791234" ||
			got.CountryCode != "CA" || got.Language != "fr" || got.Email != "ann@example.com" {
			t.Errorf("the second business's profile = %+v", got.User)
		}
		// A business cannot attach a phone to a person others know.
		person := w.person(t, "ann@example.com")
		if person.ID != first.ID || person.Phone != "" || person.FirstName != "Ann" {
			t.Errorf("the person's own record changed: %+v", person)
		}
		if w.count(t, a) != 1 || w.count(t, b) != 1 {
			t.Errorf("counts: %d and %d, want one customer in each business", w.count(t, a), w.count(t, b))
		}

		// Known by phone alone, given in another format: still the same person.
		c, d := w.business(t, "GB"), w.business(t, "GB")
		bob := w.create(t, c, `{"phone":"+44 20 7031 3000"}`)
		if again := w.create(t, d, `{"phone":"020 7031 3000","country_code":"GB"}`); again.ID != bob.ID {
			t.Errorf("joining by phone gave person %s, want %s", again.ID, bob.ID)
		}
	})
}
func TestCustomerDuplicateInSameBusiness(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "US")
		w.create(t, b, `{"email":"ann@example.com","phone":"6502530000","country_code":"US"}`)
		_, err := w.svc.Create(w.ctx, b, input(t, `{"email":"Ann@Example.com"}`))
		wantInvalid(t, err, "email")
		_, err = w.svc.Create(w.ctx, b, input(t, `{"phone":"+1 650 253 0000"}`))
		wantInvalid(t, err, "phone")
		_, err = w.svc.Create(w.ctx, b, input(t, `{"email":"ann@example.com","phone":"650-253-0000","country_code":"US"}`))
		fields := invalidFields(t, err)
		if len(fields["email"]) == 0 || len(fields["phone"]) == 0 {
			t.Errorf("both taken: %v, want email and phone named", err)
		}
		if n := w.count(t, b); n != 1 {
			t.Errorf("%d customers, want 1", n)
		}
	})
}

func TestCustomerEmailAndPhoneOfDifferentPeople(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		a, b := w.business(t, "US"), w.business(t, "US")
		w.create(t, a, `{"email":"ann@example.com","phone":"6502530000","country_code":"US"}`)
		w.create(t, a, `{"email":"bob@example.com","phone":"+14169791234"}`)
		w.create(t, a, `{"email":"cy@example.com"}`)

		// Ann's e-mail with Bob's phone.
		_, err := w.svc.Create(w.ctx, b, input(t, `{"email":"ann@example.com","phone":"+14169791234"}`))
		wantCode(t, err, loyalty.EInvalid)
		// Ann's e-mail with a phone that is not Ann's.
		_, err = w.svc.Create(w.ctx, b, input(t, `{"email":"ann@example.com","phone":"+442070313000"}`))
		wantInvalid(t, err, "phone")
		// Bob's phone with an e-mail that is not Bob's.
		_, err = w.svc.Create(w.ctx, b, input(t, `{"email":"robert@example.com","phone":"+14169791234"}`))
		wantInvalid(t, err, "email")
		// Cy has no phone: Bob's phone with Cy's e-mail is still two people.
		_, err = w.svc.Create(w.ctx, b, input(t, `{"email":"cy@example.com","phone":"+14169791234"}`))
		wantCode(t, err, loyalty.EInvalid)
		if n := w.count(t, b); n != 0 {
			t.Errorf("refused creations left %d customers in the second business", n)
		}
		// Cy's record did not get Bob's phone.
		rows, _, err := w.db.Customers(w.ctx, a.ID, loyalty.ListQuery{Page: 1, PerPage: 10,
			Filters: []loyalty.Filter{{Field: "email", Op: loyalty.OpEq, Values: []any{"cy@example.com"}}}})
		if err != nil || len(rows) != 1 || rows[0].Phone != "" {
			t.Errorf("cy = %+v, %v; want no phone", rows, err)
		}
	})
}

func TestCustomerDeleteThenRecreate(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "US")
		c := w.create(t, b, `{"email":"ann@example.com","first_name":"Ann"}`)
		if err := w.svc.Delete(w.ctx, b, c.ID); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		_, err := w.svc.Get(w.ctx, b, c.ID)
		wantCode(t, err, loyalty.ENotFound)
		wantCode(t, w.svc.Delete(w.ctx, b, c.ID), loyalty.ENotFound)
		_, err = w.svc.Update(w.ctx, b, c.ID, input(t, `{"first_name":"Anna"}`))
		wantCode(t, err, loyalty.ENotFound)
		if n := w.count(t, b); n != 0 {
			t.Errorf("a deleted customer is still listed (%d)", n)
		}

		again := w.create(t, b, `{"email":"ann@example.com","last_name":"Lee"}`)
		if again.ID != c.ID {
			t.Fatalf("re-created customer has id %s, want the membership of %s back", again.ID, c.ID)
		}
		got := w.get(t, b, c.ID)
		if got.Email != "ann@example.com" || got.LastName != "Lee" || got.Deleted {
			t.Errorf("revived customer = %+v", got)
		}
		if n := w.count(t, b); n != 1 {
			t.Errorf("%d customers after re-creating, want 1", n)
		}
	})
}

func TestCustomerUpdate(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "US")
		ann := w.create(t, b, `{"email":"ann@example.com","first_name":"Ann","last_name":"Lee","language":"en",
			"address":{"city":"Springfield","zip_code":"12345"}}`)
		w.create(t, b, `{"email":"bob@example.com","phone":"+14169791234"}`)

		later := time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC)
		w.db.Clock = func() time.Time { return later }
		got, err := w.svc.Update(w.ctx, b, strings.ToUpper(ann.ID), input(t, `{"first_name":"Anna","last_name":null,
			"phone":"650 253 0000","country_code":"US","enabled":false,"address":{"city":"Shelbyville"}}`))
		if err != nil {
			t.Fatalf("Update: %v", err)
		}
		read := w.get(t, b, ann.ID)
		for _, c := range []loyalty.Customer{got, read} {
			if c.FirstName != "Anna" || c.LastName != "" || c.Phone != "+16502530000" || c.Email != "ann@example.com" ||
				c.Language != "en" || c.Enabled || c.Address.City != "Shelbyville" || c.Address.ZipCode != "12345" {
				t.Errorf("after update: %+v", c)
			}
		}
		if !read.UpdatedAt.Equal(later) || !read.User.UpdatedAt.Equal(later) || read.CreatedAt.Equal(later) {
			t.Errorf("times: created %v, updated %v / %v; want updated at %v only", read.CreatedAt, read.UpdatedAt, read.User.UpdatedAt, later)
		}

		// Null address clears it; an absent one keeps it.
		if _, err := w.svc.Update(w.ctx, b, ann.ID, input(t, `{"address":null}`)); err != nil {
			t.Fatal(err)
		}
		if a := w.get(t, b, ann.ID).Address; !a.IsZero() {
			t.Errorf("address after null = %+v, want cleared", a)
		}

		// Another person's e-mail or phone is refused, whatever its case or format.
		_, err = w.svc.Update(w.ctx, b, ann.ID, input(t, `{"email":"BOB@example.com"}`))
		wantInvalid(t, err, "email")
		_, err = w.svc.Update(w.ctx, b, ann.ID, input(t, `{"phone":"416-979-1234","country_code":"CA"}`))
		wantInvalid(t, err, "phone")
		// Clearing both ways to reach the person is refused.
		_, err = w.svc.Update(w.ctx, b, ann.ID, input(t, `{"email":null,"phone":""}`))
		wantInvalid(t, err, "email")
		_, err = w.svc.Update(w.ctx, b, ann.ID, input(t, `{"enabled":null}`))
		wantInvalid(t, err, "enabled")
		_, err = w.svc.Update(w.ctx, b, ann.ID, input(t, `{"referral":{"referral_program_id":1,"referrer_id":"`+ann.ID+`"}}`))
		wantInvalid(t, err, "referral")
		if got := w.get(t, b, ann.ID); got.Email != "ann@example.com" || got.Phone != "+16502530000" {
			t.Errorf("refused updates changed the customer: %+v", got.User)
		}

		// Re-sending one's own e-mail in another case is not a conflict.
		if _, err := w.svc.Update(w.ctx, b, ann.ID, input(t, `{"email":"Ann@Example.com"}`)); err != nil {
			t.Errorf("own e-mail: %v", err)
		}

		_, err = w.svc.Update(w.ctx, b, loyalty.NewID(), input(t, `{"first_name":"X"}`))
		wantCode(t, err, loyalty.ENotFound)
		_, err = w.svc.Update(w.ctx, b, "nope", input(t, `{"first_name":"X"}`))
		wantCode(t, err, loyalty.EBadRequest)
	})
}

func TestCustomerUpdateStaysInItsBusiness(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		a, b := w.business(t, "US"), w.business(t, "US")
		c := w.create(t, a, `{"email":"ann@example.com"}`)
		w.create(t, b, `{"email":"ann@example.com","first_name":"Annie"}`)
		if _, err := w.svc.Update(w.ctx, a, c.ID, input(t, `{"email":"ann.lee@example.com","first_name":"Ann","enabled":false}`)); err != nil {
			t.Fatal(err)
		}
		if got := w.get(t, a, c.ID); got.Email != "ann.lee@example.com" || got.FirstName != "Ann" || got.Enabled {
			t.Errorf("the editing business's view = %+v", got)
		}
		if got := w.get(t, b, c.ID); got.Email != "ann@example.com" || got.FirstName != "Annie" || !got.Enabled {
			t.Errorf("one business's edit reached another's profile: %+v", got)
		}
		// Two businesses know her: neither can change who she is.
		if got := w.person(t, "ann@example.com"); got.ID != c.ID {
			t.Errorf("the person's e-mail changed: %+v", got)
		}
	})
}

func TestCustomerUpdateReachesUnclaimedPerson(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		a, b := w.business(t, "US"), w.business(t, "US")
		ann := w.create(t, a, `{"email":"ann@example.com"}`)
		bob := w.create(t, b, `{"email":"bob@example.com"}`)

		// Known only to this business and never claimed: the business's
		// record is all there is, so the person's record follows it.
		if _, err := w.svc.Update(w.ctx, a, ann.ID, input(t, `{"email":"ann.lee@example.com","first_name":"Ann"}`)); err != nil {
			t.Fatal(err)
		}
		if got := w.person(t, "ann.lee@example.com"); got.ID != ann.ID || got.FirstName != "Ann" {
			t.Errorf("person after the only business's edit = %+v", got)
		}
		w.noPerson(t, "ann@example.com")

		// Another person's e-mail never moves to her, whatever her profile here says.
		_, err := w.svc.Update(w.ctx, a, ann.ID, input(t, `{"email":"bob@example.com"}`))
		if err != nil {
			wantInvalid(t, err, "email")
		}
		if got := w.person(t, "bob@example.com"); got.ID != bob.ID {
			t.Errorf("bob@example.com now names %s, want bob %s", got.ID, bob.ID)
		}
		if got := w.person(t, "ann.lee@example.com"); got.ID != ann.ID {
			t.Errorf("ann lost her own e-mail: %+v", got)
		}

		// Once she claimed the account with a PIN, her record is hers.
		if _, err := w.db.SQL().ExecContext(w.ctx, `UPDATE users SET pin_hash = $1 WHERE id = $2`, "pin-hash", ann.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := w.svc.Update(w.ctx, a, ann.ID, input(t, `{"email":"a.lee@example.com","first_name":"Anna"}`)); err != nil {
			t.Fatal(err)
		}
		if got := w.person(t, "ann.lee@example.com"); got.ID != ann.ID || got.FirstName != "Ann" {
			t.Errorf("a business's edit reached a claimed person: %+v", got)
		}
		if got := w.get(t, a, ann.ID); got.Email != "a.lee@example.com" || got.FirstName != "Anna" {
			t.Errorf("the business's own profile = %+v", got.User)
		}
	})
}
func TestCustomerGetAndDeleteScope(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		a, b := w.business(t, "US"), w.business(t, "US")
		c := w.create(t, a, `{"email":"ann@example.com"}`)
		_, err := w.svc.Get(w.ctx, b, c.ID)
		wantCode(t, err, loyalty.ENotFound)
		wantCode(t, w.svc.Delete(w.ctx, b, c.ID), loyalty.ENotFound)
		_, err = w.svc.Get(w.ctx, a, "not-an-id")
		wantCode(t, err, loyalty.EBadRequest)
		wantCode(t, w.svc.Delete(w.ctx, a, "12345"), loyalty.EBadRequest)
		if got := w.get(t, a, strings.ToUpper(c.ID)); got.ID != c.ID {
			t.Errorf("upper-case id found %q", got.ID)
		}
	})
}

func TestCustomerReferral(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b, other := w.business(t, "US"), w.business(t, "US")
		prog := w.referralProgram(t, b, true)
		off := w.referralProgram(t, b, false)
		otherProg := w.referralProgram(t, other, true)
		ref := w.create(t, b, `{"email":"referrer@example.com"}`)

		refused := []struct {
			name, body, field string
		}{
			{"missing program", referralBody("a@example.com", 999999, ref.ID), "referral.referral_program_id"},
			{"disabled program", referralBody("a@example.com", off, ref.ID), "referral.referral_program_id"},
			{"program of another business", referralBody("a@example.com", otherProg, ref.ID), "referral.referral_program_id"},
			{"referrer unknown", referralBody("a@example.com", prog, loyalty.NewID()), "referral.referrer_id"},
		}
		outsider := w.create(t, other, `{"email":"outsider@example.com"}`)
		refused = append(refused, struct{ name, body, field string }{
			"referrer of another business", referralBody("a@example.com", prog, outsider.ID), "referral.referrer_id"})
		// A person known elsewhere joins and names themselves.
		refused = append(refused, struct{ name, body, field string }{
			"self", referralBody("outsider@example.com", prog, outsider.ID), "referral.referrer_id"})
		for _, c := range refused {
			_, err := w.svc.Create(w.ctx, b, input(t, c.body))
			if fields := invalidFields(t, err); len(fields[c.field]) == 0 {
				t.Errorf("%s: %v, want %q named", c.name, err, c.field)
			}
		}
		if n := w.count(t, b); n != 1 {
			t.Errorf("refused referrals left %d customers, want only the referrer", n)
		}

		// A deleted referrer no longer refers.
		gone := w.create(t, b, `{"email":"gone@example.com"}`)
		if err := w.svc.Delete(w.ctx, b, gone.ID); err != nil {
			t.Fatal(err)
		}
		_, err := w.svc.Create(w.ctx, b, input(t, referralBody("a@example.com", prog, gone.ID)))
		wantInvalid(t, err, "referral.referrer_id")

		a := w.create(t, b, referralBody("a@example.com", prog, ref.ID))
		if got := w.referrals(t, b); len(got) != 1 || got[a.ID] != ref.ID {
			t.Errorf("referrals = %v, want %s referred by %s", got, a.ID, ref.ID)
		}

		// Leaving and coming back with another referrer is a second referral.
		if err := w.svc.Delete(w.ctx, b, a.ID); err != nil {
			t.Fatal(err)
		}
		second := w.create(t, b, `{"email":"second@example.com"}`)
		_, err = w.svc.Create(w.ctx, b, input(t, referralBody("a@example.com", prog, second.ID)))
		wantInvalid(t, err, "referral")
		if _, err := w.svc.Get(w.ctx, b, a.ID); loyalty.ErrorCode(err) != loyalty.ENotFound {
			t.Errorf("a refused re-creation revived the customer: %v", err)
		}
		if got := w.referrals(t, b); len(got) != 1 || got[a.ID] != ref.ID {
			t.Errorf("referrals = %v, want only the first", got)
		}
	})
}
