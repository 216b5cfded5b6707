package console

import (
	"context"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/nyaruka/phonenumbers"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// CustomerSearch is the console's customer search, as typed in its form.
type CustomerSearch struct {
	Query      string // a name, e-mail or phone, or the start of one
	Tier       string // a level id of the enabled tier program, "none" for no level, "" for any
	Enabled    string // "yes", "no" or "" for both
	JoinedFrom string // YYYY-MM-DD, in the business's time zone
	JoinedTo   string // YYYY-MM-DD, inclusive
	Page       int
}

// SearchPageSize is how many customers a page of the search shows.
const SearchPageSize = 25

// tierScanBatch is how many customers a tier filter reads at a time.
const tierScanBatch = 500

// SearchResult is one page of a customer search.
type SearchResult struct {
	Customers []loyalty.Customer
	Levels    map[string]string // each customer's tier level name, when a tier program is enabled
	Total     int
	Page      int
	Pages     int
	Tier      *loyalty.Tier // the enabled tier program, for the filter's choices
}

// Search finds the customers of the actor's business by the start of a
// name, e-mail address or phone number, by tier level, state and joining
// date, newest first.
func (d *CustomerDesk) Search(ctx context.Context, a loyalty.Actor, in CustomerSearch, loc *time.Location) (SearchResult, error) {
	if err := a.Require(loyalty.PermCounter); err != nil {
		return SearchResult{}, err
	}
	b, err := d.business(ctx, a)
	if err != nil {
		return SearchResult{}, err
	}
	f, v := searchFilter(in, b.Country, loc)
	tiers, err := d.Store.Tiers(ctx, b.ID)
	if err != nil {
		return SearchResult{}, err
	}
	out := SearchResult{Page: max(in.Page, 1), Levels: map[string]string{}}
	tier, hasTier := loyalty.EnabledTier(tiers)
	if hasTier {
		out.Tier = &tier
	}
	level := -2 // any
	if in.Tier != "" {
		level = tierChoice(v, tier, hasTier, in.Tier)
	}
	if err := v.Err(); err != nil {
		return out, err
	}
	offset := (out.Page - 1) * SearchPageSize
	if level == -2 {
		out.Customers, out.Total, err = d.Store.SearchCustomers(ctx, b.ID, f, offset, SearchPageSize)
	} else {
		out.Customers, out.Total, err = d.searchByLevel(ctx, b, f, tier, level, offset)
	}
	if err != nil {
		return out, err
	}
	out.Pages = (out.Total + SearchPageSize - 1) / SearchPageSize
	if hasTier && len(out.Customers) > 0 {
		held, err := d.levels(ctx, b, tier, out.Customers)
		if err != nil {
			return out, err
		}
		for i, c := range out.Customers {
			if held[i] >= 0 {
				out.Levels[c.ID] = tier.Levels[held[i]].Name
			}
		}
	}
	return out, nil
}

// searchFilter reads a search's text into the store's filter.
func searchFilter(in CustomerSearch, country string, loc *time.Location) (loyalty.CustomerFilter, loyalty.Validation) {
	v := loyalty.Validation{}
	var f loyalty.CustomerFilter
	q := strings.TrimSpace(in.Query)
	switch {
	case q == "":
	case strings.Contains(q, "@"):
		f.EmailPrefix = strings.ToLower(q)
	case isPhoneLike(q):
		f.PhonePrefixes = phonePrefixes(q, country)
	default:
		f.NamePrefix = strings.ToLower(strings.Join(strings.Fields(q), " "))
	}
	switch in.Enabled {
	case "":
	case "yes", "no":
		on := in.Enabled == "yes"
		f.Enabled = &on
	default:
		v.Add("enabled", "Choose enabled, disabled or both.")
	}
	day := func(field, s string) time.Time {
		if s == "" {
			return time.Time{}
		}
		t, err := time.ParseInLocation(time.DateOnly, s, loc)
		if err != nil {
			v.Add(field, "Enter a date as YYYY-MM-DD.")
		}
		return t
	}
	f.JoinedFrom = day("joined_from", in.JoinedFrom)
	if to := day("joined_to", in.JoinedTo); !to.IsZero() {
		f.JoinedBefore = to.AddDate(0, 0, 1)
		if !f.JoinedFrom.IsZero() && !f.JoinedBefore.After(f.JoinedFrom) {
			v.Add("joined_to", "The end date must not be before the start date.")
		}
	}
	return f, v
}

// isPhoneLike reports whether q is written as a phone number: digits with
// the usual separators, at least three digits.
func isPhoneLike(q string) bool {
	digits := 0
	for _, r := range q {
		switch {
		case unicode.IsDigit(r):
			digits++
		case strings.ContainsRune("+-() .", r):
		default:
			return false
		}
	}
	return digits >= 3
}

// phonePrefixes are the starts of E.164 numbers that q may be the start
// of: as an international number when it starts with + or 00, else also
// as a national number of the business's country (without its trunk 0).
func phonePrefixes(q, country string) []string {
	digits := strings.Map(func(r rune) rune {
		if unicode.IsDigit(r) {
			return r
		}
		return -1
	}, q)
	q = strings.TrimSpace(q)
	if strings.HasPrefix(q, "+") {
		return []string{"+" + digits}
	}
	if strings.HasPrefix(digits, "00") {
		return []string{"+" + digits[2:]}
	}
	out := []string{"+" + digits}
	if cc := phonenumbers.GetCountryCodeForRegion(strings.ToUpper(country)); cc != 0 {
		out = append(out, "+"+strconv.Itoa(cc)+strings.TrimPrefix(digits, "0"))
	}
	return out
}

// tierChoice reads the tier filter: the index of the level asked for, -1
// for customers with no level.
func tierChoice(v loyalty.Validation, t loyalty.Tier, ok bool, choice string) int {
	if !ok {
		v.Add("tier", "Your business has no tier program enabled.")
		return -2
	}
	if choice == "none" {
		return -1
	}
	for i, l := range t.Levels {
		if strconv.FormatInt(l.ID, 10) == choice {
			return i
		}
	}
	v.Add("tier", "Choose one of the levels of your tier program.")
	return -2
}

// searchByLevel pages the customers matching f whose tier level is the
// level at index want (-1: none). A level is computed from the ledger, so
// every customer matching f is read, in batches, and each one's standing
// computed as the profile computes it.
func (d *CustomerDesk) searchByLevel(ctx context.Context, b loyalty.Business, f loyalty.CustomerFilter, t loyalty.Tier, want, offset int) ([]loyalty.Customer, int, error) {
	var page []loyalty.Customer
	total := 0
	for from := 0; ; from += tierScanBatch {
		batch, _, err := d.Store.SearchCustomers(ctx, b.ID, f, from, tierScanBatch)
		if err != nil {
			return nil, 0, err
		}
		held, err := d.levels(ctx, b, t, batch)
		if err != nil {
			return nil, 0, err
		}
		for i, c := range batch {
			if held[i] != want {
				continue
			}
			if total >= offset && len(page) < SearchPageSize {
				page = append(page, c)
			}
			total++
		}
		if len(batch) < tierScanBatch {
			return page, total, nil
		}
	}
}

// levels returns the index of the level each customer of b holds in t
// (-1 for none) on b's clock, as the domain computes it
// (loyalty.HeldLevels).
func (d *CustomerDesk) levels(ctx context.Context, b loyalty.Business, t loyalty.Tier, list []loyalty.Customer) ([]int, error) {
	ids := make([]string, len(list))
	for i, c := range list {
		ids[i] = c.ID
	}
	return loyalty.HeldLevels(ctx, loyalty.ClockedStore(d.Store, b.ClockOffset), t, ids)
}
