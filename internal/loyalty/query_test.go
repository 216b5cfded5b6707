package loyalty_test

import (
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

func TestParseTime(t *testing.T) {
	want := time.Date(2026, 1, 31, 9, 5, 0, 0, time.UTC)
	for _, s := range []string{
		"2026-01-31T09:05:00+00:00",
		"2026-01-31T09:05:00+0000",
		"2026-01-31T09:05:00Z",
		"2026-01-31T10:05:00+01:00",
		"2026-01-31T10:05:00+0100",
		"2026-01-31T04:05:00-05:00",
		"2026-01-31T04:05:00-0500",
		"2026-01-31 09:05:00+00:00",
	} {
		got, err := loyalty.ParseTime(s)
		if err != nil || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("ParseTime(%q) = %v (%v), %v; want %v in UTC", s, got, got.Location(), err, want)
		}
	}
	got, err := loyalty.ParseTime("2026-01-31T09:05:00.250Z")
	if err != nil || !got.Equal(want.Add(250*time.Millisecond)) {
		t.Errorf("fractional seconds: %v, %v", got, err)
	}
	got, err = loyalty.ParseTime("2026-01-31")
	if midnight := time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC); err != nil || !got.Equal(midnight) || got.Location() != time.UTC {
		t.Errorf("date only: %v, %v; want %v", got, err, midnight)
	}
	for _, s := range []string{"", "yesterday", "2026-13-01", "2026-02-30", "31/01/2026", "2026-01-31T09:05:00", "1738314300"} {
		if got, err := loyalty.ParseTime(s); err == nil {
			t.Errorf("ParseTime(%q) = %v, want an error", s, got)
		}
	}
}

func TestFormatTime(t *testing.T) {
	paris := time.FixedZone("CET", 3600)
	for _, c := range []struct {
		in   time.Time
		want string
	}{
		{time.Date(2026, 1, 31, 9, 5, 0, 0, time.UTC), "2026-01-31T09:05:00+00:00"},
		{time.Date(2026, 1, 31, 10, 5, 0, 0, paris), "2026-01-31T09:05:00+00:00"},
		{time.Date(2026, 1, 31, 9, 5, 0, 999_000_000, time.UTC), "2026-01-31T09:05:00+00:00"},
		{time.Date(2025, 12, 31, 23, 59, 59, 0, time.UTC), "2025-12-31T23:59:59+00:00"},
	} {
		if got := loyalty.FormatTime(c.in); got != c.want {
			t.Errorf("FormatTime(%v) = %q, want %q", c.in, got, c.want)
		}
	}
	// What FormatTime writes, ParseTime reads back.
	now := time.Now().Truncate(time.Second)
	if back, err := loyalty.ParseTime(loyalty.FormatTime(now)); err != nil || !back.Equal(now) {
		t.Errorf("round trip of %v gave %v, %v", now, back, err)
	}
}

// testSpec filters one field of each kind.
var testSpec = loyalty.ListSpec{
	Fields: map[string]loyalty.FilterKind{
		"created_at": loyalty.KindTime, "email": loyalty.KindEmail, "phone": loyalty.KindPhone,
		"transaction_type": loyalty.KindInt, "name": loyalty.KindString,
	},
	Reserved:       []string{"include"},
	DefaultPerPage: 15,
	Country:        "US",
}

func parseQuery(tb testing.TB, raw string) (loyalty.ListQuery, error) {
	tb.Helper()
	q, err := url.ParseQuery(raw)
	if err != nil {
		tb.Fatalf("bad test query %q: %v", raw, err)
	}
	return loyalty.ParseListQuery(q, testSpec)
}

func TestParseListQueryPaging(t *testing.T) {
	lq, err := parseQuery(t, "")
	if err != nil || lq.Page != 1 || lq.PerPage != 15 || lq.Offset() != 0 || len(lq.Filters) != 0 {
		t.Errorf("defaults: %+v, %v; want page 1, per_page 15, no filters", lq, err)
	}
	lq, err = parseQuery(t, "page=3&per_page=10&include=balance")
	if err != nil || lq.Page != 3 || lq.PerPage != 10 || lq.Offset() != 20 {
		t.Errorf("page 3 of 10: %+v, %v; want offset 20", lq, err)
	}
	for _, pp := range []string{"1", "100"} {
		if lq, err := parseQuery(t, "per_page="+pp); err != nil || itoa(lq.PerPage) != pp {
			t.Errorf("per_page=%s: %+v, %v", pp, lq, err)
		}
	}
	for _, c := range []struct{ query, field string }{
		{"page=0", "page"}, {"page=-1", "page"}, {"page=abc", "page"}, {"page=1.5", "page"},
		{"per_page=0", "per_page"}, {"per_page=101", "per_page"}, {"per_page=-5", "per_page"}, {"per_page=ten", "per_page"},
	} {
		_, err := parseQuery(t, c.query)
		wantInvalid(t, err, c.field)
	}
}

func TestParseListQueryUnknownField(t *testing.T) {
	_, err := parseQuery(t, "email=eq|a@example.com&favourite_colour=eq|red")
	wantCode(t, err, loyalty.EBadRequest)
	if msg := loyalty.ErrorMessage(err); !strings.Contains(msg, "favourite_colour") {
		t.Errorf("message %q does not name the field", msg)
	}
}

func TestParseListQueryOps(t *testing.T) {
	t1 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	t2 := time.Date(2026, 2, 1, 12, 30, 0, 0, time.UTC)
	cases := []struct {
		query string
		want  loyalty.Filter
	}{
		{"created_at=eq|2026-01-01T00:00:00%2B00:00", loyalty.Filter{"created_at", "eq", []any{t1}}},
		{"created_at=2026-01-01", loyalty.Filter{"created_at", "eq", []any{t1}}}, // bare value
		{"created_at=gt|2026-01-01T00:00:00Z", loyalty.Filter{"created_at", "gt", []any{t1}}},
		{"created_at=gte|2026-01-01T01:00:00%2B0100", loyalty.Filter{"created_at", "gte", []any{t1}}},
		{"created_at=lt|2026-02-01T12:30:00Z", loyalty.Filter{"created_at", "lt", []any{t2}}},
		{"created_at=lte|2026-02-01T07:30:00-05:00", loyalty.Filter{"created_at", "lte", []any{t2}}},
		{"created_at=between|2026-01-01,2026-02-01T12:30:00Z", loyalty.Filter{"created_at", "between", []any{t1, t2}}},
		{"created_at=in|2026-01-01,2026-02-01T12:30:00Z", loyalty.Filter{"created_at", "in", []any{t1, t2}}},
		{"created_at=not_in|2026-01-01", loyalty.Filter{"created_at", "not_in", []any{t1}}},
		{"email=eq|Ann@Example.COM", loyalty.Filter{"email", "eq", []any{"ann@example.com"}}},
		{"email=in|a@x.io,B@Y.io", loyalty.Filter{"email", "in", []any{"a@x.io", "b@y.io"}}},
		{"phone=eq|(650) 253-0000", loyalty.Filter{"phone", "eq", []any{"+16502530000"}}},
		{"phone=eq|%2B442070313000", loyalty.Filter{"phone", "eq", []any{"+442070313000"}}},
		// An unencoded "+" arrives as a space.
		{"phone=eq|+442070313000", loyalty.Filter{"phone", "eq", []any{"+442070313000"}}},
		{"phone=not_in|6502530000,+442070313000", loyalty.Filter{"phone", "not_in", []any{"+16502530000", "+442070313000"}}},
		// Unencoded "+" in an offset, and spaces after the commas of a list.
		{"created_at=gt|2026-01-01T00:00:00+00:00", loyalty.Filter{"created_at", "gt", []any{t1}}},
		{"created_at=gt|2026-01-01T01:00:00+0100", loyalty.Filter{"created_at", "gt", []any{t1}}},
		{"created_at=between|2026-01-01, 2026-02-01T12:30:00Z", loyalty.Filter{"created_at", "between", []any{t1, t2}}},
		{"email=in|a@x.io, B@Y.io", loyalty.Filter{"email", "in", []any{"a@x.io", "b@y.io"}}},
		{"phone=in|%2B16502530000, %2B442070313000", loyalty.Filter{"phone", "in", []any{"+16502530000", "+442070313000"}}},
		{"transaction_type=in|4, 5", loyalty.Filter{"transaction_type", "in", []any{int64(4), int64(5)}}},
		{"transaction_type=in|4,5", loyalty.Filter{"transaction_type", "in", []any{int64(4), int64(5)}}},
		{"transaction_type=eq|-3", loyalty.Filter{"transaction_type", "eq", []any{int64(-3)}}},
		{"name=eq|Main", loyalty.Filter{"name", "eq", []any{"Main"}}},
	}
	for _, c := range cases {
		lq, err := parseQuery(t, c.query)
		if err != nil {
			t.Errorf("%s: %v", c.query, err)
			continue
		}
		if len(lq.Filters) != 1 || !reflect.DeepEqual(lq.Filters[0], c.want) {
			t.Errorf("%s: filters %#v, want %#v", c.query, lq.Filters, c.want)
		}
	}
}

func TestParseListQueryRepeatedAndCombined(t *testing.T) {
	lq, err := parseQuery(t, "created_at=gte|2026-01-01&created_at=lt|2026-02-01&email=a@x.io")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, f := range lq.Filters {
		got[f.Field+" "+f.Op]++
	}
	want := map[string]int{"created_at gte": 1, "created_at lt": 1, "email eq": 1}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("filters %v, want %v", got, want)
	}
}

func TestParseListQueryBadFilters(t *testing.T) {
	for _, c := range []struct{ query, mention string }{
		{"email=like|a%25", "like"},
		{"email=EQ|a@x.io", "EQ"},
		{"created_at=between|2026-01-01", "created_at"},
		{"created_at=between|2026-01-01,2026-01-02,2026-01-03", "created_at"},
		{"created_at=between|", "created_at"},
		{"created_at=gt|yesterday", "yesterday"},
		{"created_at=in|2026-01-01,soon", "soon"},
		{"phone=eq|12", "phone"},
		{"phone=in|6502530000,nope", "nope"},
		{"transaction_type=eq|four", "four"},
		{"transaction_type=in|4,", "transaction_type"},
		{"email=eq|", "email"},
		{"name=", "name"},
		// Text that is not UTF-8 would match nothing, or be refused by PostgreSQL.
		{"email=eq|andr%E9@x.io", "UTF-8"},
		{"name=in|Main,Caf%E9", "UTF-8"},
		// PostgreSQL refuses a NUL in text; SQLite would compare it.
		{"email=eq|a%00b@x.io", "NUL"},
		{"name=in|Main,a%00b", "NUL"},
	} {
		_, err := parseQuery(t, c.query)
		if loyalty.ErrorCode(err) != loyalty.EBadRequest {
			t.Errorf("%s: %v, want a bad request", c.query, err)
			continue
		}
		if msg := loyalty.ErrorMessage(err); !strings.Contains(msg, c.mention) {
			t.Errorf("%s: message %q does not mention %q", c.query, msg, c.mention)
		}
	}
}

func TestParseNames(t *testing.T) {
	allowed := []string{"balance", "tier_level", "tiers"}
	got, err := loyalty.ParseNames("include", "balance, tiers,,balance", allowed)
	if err != nil || !reflect.DeepEqual(got, map[string]bool{"balance": true, "tiers": true}) {
		t.Errorf("ParseNames = %v, %v", got, err)
	}
	if got, err := loyalty.ParseNames("include", "", allowed); err != nil || len(got) != 0 {
		t.Errorf("empty: %v, %v; want no names", got, err)
	}
	_, err = loyalty.ParseNames("relationships", "balance,wallet", allowed)
	wantCode(t, err, loyalty.EBadRequest)
	if msg := loyalty.ErrorMessage(err); !strings.Contains(msg, "wallet") || !strings.Contains(msg, "relationships") {
		t.Errorf("message %q should name the parameter and the unknown name", msg)
	}
	if _, err := loyalty.ParseNames("include", "Balance", allowed); loyalty.ErrorCode(err) != loyalty.EBadRequest {
		t.Errorf("names are case-sensitive: got %v", err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestParseListQueryListCap: on every filterable field of every list, an
// in or not_in list of MaxFilterValues values parses and one more is a bad
// request saying the limit; more than MaxFilters conditions are too.
func TestParseListQueryListCap(t *testing.T) {
	sample := map[loyalty.FilterKind]string{
		loyalty.KindTime: "2026-01-01", loyalty.KindEmail: "a@x.io", loyalty.KindPhone: "%2B16502530000",
		loyalty.KindInt: "4", loyalty.KindString: "abc",
	}
	specs := map[string]loyalty.ListSpec{
		"customers": loyalty.CustomerListSpec("US"), "transactions": loyalty.TransactionListSpec,
		"history": loyalty.HistoryListSpec, "customer offers": loyalty.CustomerOfferSpec,
		"giftcards": loyalty.GiftcardListSpec, "offers": loyalty.OfferListSpec, "rewards": loyalty.RewardListSpec,
	}
	fields := 0
	for name, spec := range specs {
		for field, kind := range spec.Fields {
			fields++
			list := func(n int) url.Values {
				q, err := url.ParseQuery(field + "=in|" + strings.Repeat(sample[kind]+",", n-1) + sample[kind])
				if err != nil {
					t.Fatal(err)
				}
				return q
			}
			if lq, err := loyalty.ParseListQuery(list(loyalty.MaxFilterValues), spec); err != nil || len(lq.Filters[0].Values) != loyalty.MaxFilterValues {
				t.Errorf("%s: %s=in|<%d values>: %v", name, field, loyalty.MaxFilterValues, err)
			}
			_, err := loyalty.ParseListQuery(list(loyalty.MaxFilterValues+1), spec)
			if loyalty.ErrorCode(err) != loyalty.EBadRequest || !strings.Contains(loyalty.ErrorMessage(err), "at most 100") {
				t.Errorf("%s: %s=in|<101 values>: %v, want a bad request saying the limit", name, field, err)
			}
		}
	}
	if fields < 10 {
		t.Fatalf("only %d filterable fields found", fields)
	}
	q := url.Values{}
	for i := range loyalty.MaxFilters {
		q.Add("created_at", "gte|2026-01-0"+strconv.Itoa(1+i%9))
	}
	if _, err := loyalty.ParseListQuery(q, testSpec); err != nil {
		t.Errorf("%d conditions: %v", loyalty.MaxFilters, err)
	}
	q.Add("email", "a@x.io")
	if _, err := loyalty.ParseListQuery(q, testSpec); loyalty.ErrorCode(err) != loyalty.EBadRequest || !strings.Contains(loyalty.ErrorMessage(err), "at most 20") {
		t.Errorf("%d conditions: %v, want a bad request saying the limit", loyalty.MaxFilters+1, err)
	}
}
