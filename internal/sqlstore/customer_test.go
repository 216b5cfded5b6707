package sqlstore_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// listFixture is a business with five customers created an hour apart.
type listFixture struct {
	db       *sqlstore.DB
	business string
	ids      []string    // in creation order
	times    []time.Time // created_at of each
}

var listBase = time.Date(2026, 1, 10, 8, 0, 0, 0, time.UTC)

func newListFixture(tb testing.TB, db *sqlstore.DB) *listFixture {
	tb.Helper()
	f := &listFixture{db: db, business: createBusiness(tb, db, "").BusinessID}
	phones := []string{"(650) 253-0000", "", "416 979 1234", "", "020 7031 3000"}
	countries := []string{"US", "", "CA", "", "GB"}
	for i := range 5 {
		at := listBase.Add(time.Duration(i) * time.Hour)
		setClock(db, at)
		body := map[string]any{"email": fmt.Sprintf("C%d@Example.com", i)}
		if phones[i] != "" {
			body["phone"], body["country_code"] = phones[i], countries[i]
		}
		raw, _ := json.Marshal(body)
		var in loyalty.CustomerInput
		if err := json.Unmarshal(raw, &in); err != nil {
			tb.Fatal(err)
		}
		c := createCustomer(tb, db, f.business, in)
		f.ids = append(f.ids, c.ID)
		f.times = append(f.times, at)
	}
	// Noise: a customer of another business at the same times.
	other := createBusiness(tb, db, "").BusinessID
	setClock(db, listBase.Add(2*time.Hour))
	createCustomer(tb, db, other, loyalty.CustomerInput{Email: loyalty.Some("c2-elsewhere@example.com")})
	return f
}

// list runs a GET /customers query string against the store.
func (f *listFixture) list(tb testing.TB, query string) ([]string, int) {
	tb.Helper()
	q, err := url.ParseQuery(query)
	if err != nil {
		tb.Fatal(err)
	}
	lq, err := loyalty.ParseListQuery(q, loyalty.CustomerListSpec("US"))
	if err != nil {
		tb.Fatalf("ParseListQuery(%q): %v", query, err)
	}
	rows, total, err := f.db.Customers(ctx, f.business, lq)
	if err != nil {
		tb.Fatalf("Customers(%q): %v", query, err)
	}
	ids := []string{}
	for _, c := range rows {
		if c.BusinessID != f.business {
			tb.Errorf("listed a customer of business %s", c.BusinessID)
		}
		ids = append(ids, c.ID)
	}
	return ids, total
}

// pick returns the ids of the customers at the given indexes.
func (f *listFixture) pick(idx ...int) []string {
	out := []string{}
	for _, i := range idx {
		out = append(out, f.ids[i])
	}
	return out
}

func TestCustomersFilterCreatedAt(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		f := newListFixture(t, db)
		for _, c := range []struct {
			query string
			want  []int
		}{
			{"", []int{0, 1, 2, 3, 4}},
			{"created_at=eq|2026-01-10T10:00:00%2B00:00", []int{2}},
			{"created_at=2026-01-10T10:00:00Z", []int{2}},
			{"created_at=eq|2026-01-10T10:00:01Z", []int{}},
			{"created_at=gt|2026-01-10T10:00:00Z", []int{3, 4}},
			{"created_at=gte|2026-01-10T10:00:00%2B0000", []int{2, 3, 4}},
			{"created_at=lt|2026-01-10T10:00:00Z", []int{0, 1}},
			{"created_at=lte|2026-01-10T10:00:00Z", []int{0, 1, 2}},
			// Offsets other than UTC compare as the instant they name.
			{"created_at=gte|2026-01-10T12:00:00%2B02:00", []int{2, 3, 4}},
			{"created_at=lt|2026-01-10T04:30:00-0500", []int{0, 1}},
			{"created_at=between|2026-01-10T09:00:00Z,2026-01-10T11:00:00Z", []int{1, 2, 3}},
			{"created_at=between|2026-01-10T09:00:01Z,2026-01-10T10:59:59Z", []int{2}},
			{"created_at=in|2026-01-10T08:00:00Z,2026-01-10T12:00:00Z", []int{0, 4}},
			{"created_at=not_in|2026-01-10T08:00:00Z,2026-01-10T12:00:00Z", []int{1, 2, 3}},
			{"created_at=gte|2026-01-10T09:00:00Z&created_at=lt|2026-01-10T11:00:00Z", []int{1, 2}},
			// Fractions of a second compare as instants too.
			{"created_at=lt|2026-01-10T10:00:00.5Z", []int{0, 1, 2}},
			{"created_at=gt|2026-01-10T09:59:59.5Z", []int{2, 3, 4}},
			{"created_at=gte|2026-01-10", []int{0, 1, 2, 3, 4}},
			{"created_at=lt|2026-01-10", []int{}},
		} {
			got, total := f.list(t, c.query)
			if want := f.pick(c.want...); !slices.Equal(got, want) || total != len(want) {
				t.Errorf("%s: got %v (total %d), want %v", c.query, got, total, want)
			}
		}
	})
}

func TestCustomersFilterEmailPhoneUpdated(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		f := newListFixture(t, db)
		later := listBase.Add(24 * time.Hour)
		setClock(db, later)
		b, err := db.Business(ctx, f.business)
		if err != nil {
			t.Fatal(err)
		}
		svc := loyalty.CustomerService{Store: db}
		if _, err := svc.Update(ctx, b, f.ids[3], loyalty.CustomerInput{FirstName: loyalty.Some("Dee")}); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			query string
			want  []int
		}{
			{"email=eq|C1@EXAMPLE.com", []int{1}},
			{"email=c3@example.com", []int{3}},
			{"email=eq|nobody@example.com", []int{}},
			{"email=in|c0@example.com,c4@example.com,nobody@example.com", []int{0, 4}},
			// Customers without a phone are kept by not_in.
			{"phone=not_in|%2B16502530000", []int{1, 2, 3, 4}},
			{"email=not_in|c0@example.com,c1@example.com", []int{2, 3, 4}},
			{"phone=eq|650.253.0000", []int{0}},
			{"phone=eq|%2B1 416 979 1234", []int{2}},
			{"phone=eq|+442070313000", []int{4}},
			{"phone=in|6502530000,%2B442070313000", []int{0, 4}},
			{"updated_at=gt|2026-01-11T07:59:59Z", []int{3}},
			{"updated_at=lt|2026-01-11T00:00:00Z", []int{0, 1, 2, 4}},
		} {
			got, total := f.list(t, c.query)
			if want := f.pick(c.want...); !slices.Equal(got, want) || total != len(want) {
				t.Errorf("%s: got %v (total %d), want %v", c.query, got, total, want)
			}
		}
	})
}

func TestCustomersPaging(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		f := newListFixture(t, db)
		for _, c := range []struct {
			query string
			want  []int
		}{
			{"per_page=2", []int{0, 1}},
			{"per_page=2&page=2", []int{2, 3}},
			{"per_page=2&page=3", []int{4}},
			{"per_page=2&page=4", []int{}},
			{"per_page=100&page=1", []int{0, 1, 2, 3, 4}},
			{"per_page=1&page=5", []int{4}},
		} {
			got, total := f.list(t, c.query)
			if want := f.pick(c.want...); !slices.Equal(got, want) || total != 5 {
				t.Errorf("%s: got %v (total %d), want %v (total 5)", c.query, got, total, want)
			}
		}
		// Paging applies after filtering, and the total counts the matches.
		got, total := f.list(t, "created_at=gte|2026-01-10T09:00:00Z&per_page=3&page=2")
		if want := f.pick(4); !slices.Equal(got, want) || total != 4 {
			t.Errorf("filtered page 2: got %v (total %d), want %v (total 4)", got, total, want)
		}
	})
}

func TestCustomersHidesDeleted(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		f := newListFixture(t, db)
		b, err := db.Business(ctx, f.business)
		if err != nil {
			t.Fatal(err)
		}
		svc := loyalty.CustomerService{Store: db}
		if err := svc.Delete(ctx, b, f.ids[1]); err != nil {
			t.Fatal(err)
		}
		got, total := f.list(t, "")
		if want := f.pick(0, 2, 3, 4); !slices.Equal(got, want) || total != 4 {
			t.Errorf("after delete: %v (total %d), want %v", got, total, want)
		}
		if got, total := f.list(t, "email=c1@example.com"); len(got) != 0 || total != 0 {
			t.Errorf("a deleted customer is found by e-mail: %v", got)
		}
		got, total = f.list(t, "per_page=2&page=2")
		if want := f.pick(3, 4); !slices.Equal(got, want) || total != 4 {
			t.Errorf("page 2 after delete: %v (total %d), want %v", got, total, want)
		}
		_, err = db.Customer(ctx, f.business, f.ids[1])
		wantCode(t, err, loyalty.ENotFound)
		if c, err := db.Customer(ctx, f.business, f.ids[2]); err != nil || c.Email != "c2@example.com" || !c.CreatedAt.Equal(f.times[2]) {
			t.Errorf("Customer = %+v, %v", c, err)
		}
	})
}

func TestCustomersUnknownFilterField(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		b := createBusiness(t, db, "")
		_, _, err := db.Customers(ctx, b.BusinessID, loyalty.ListQuery{Page: 1, PerPage: 10,
			Filters: []loyalty.Filter{{Field: "pin_hash", Op: loyalty.OpEq, Values: []any{"x"}}}})
		wantCode(t, err, loyalty.EBadRequest)
	})
}

// TestCustomerCountFollowsEveryChange checks the kept number of customers
// that an unfiltered list reports as its total against a count of the
// rows, after concurrent sign-ups, deletions, a deleted customer joining
// again, and a customer of another business.
func TestCustomerCountFollowsEveryChange(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		biz, other := createBusiness(t, db, ""), createBusiness(t, db, "")
		b, err := db.Business(ctx, biz.BusinessID)
		if err != nil {
			t.Fatal(err)
		}
		svc := loyalty.CustomerService{Store: db}
		const n = 24
		ids := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				c, err := svc.Create(ctx, b, loyalty.CustomerInput{Email: loyalty.Some(fmt.Sprintf("count-%d@example.com", i))})
				if err != nil {
					t.Error(err)
				}
				ids[i] = c.ID
			})
		}
		wg.Wait()
		createCustomer(t, db, other.BusinessID, loyalty.CustomerInput{Email: loyalty.Some("elsewhere@example.com")})
		for _, id := range ids[:5] {
			if err := svc.Delete(ctx, b, id); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := svc.Create(ctx, b, loyalty.CustomerInput{Email: loyalty.Some("count-0@example.com")}); err != nil {
			t.Fatal(err)
		}
		var rows int
		if err := db.SQL().QueryRowContext(ctx, `SELECT COUNT(*) FROM customers WHERE business_id = $1 AND deleted_at IS NULL`,
			b.ID).Scan(&rows); err != nil {
			t.Fatal(err)
		}
		_, total, err := db.Customers(ctx, b.ID, loyalty.ListQuery{Page: 1, PerPage: 10})
		if err != nil {
			t.Fatal(err)
		}
		if want := n - 5 + 1; rows != want || total != want {
			t.Errorf("customers: %d rows, list total %d; want %d", rows, total, want)
		}
	})
}
