package loyalty

import (
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Filter operators.
const (
	OpEq      = "eq"
	OpGt      = "gt"
	OpGte     = "gte"
	OpLt      = "lt"
	OpLte     = "lte"
	OpBetween = "between"
	OpIn      = "in"
	OpNotIn   = "not_in"
)

var filterOps = []string{OpEq, OpGt, OpGte, OpLt, OpLte, OpBetween, OpIn, OpNotIn}

// Bounds of a list request's filters. Every value is a bound SQL
// parameter: SQLite allows 32,766 per statement, PostgreSQL 65,535.
const (
	MaxFilterValues = 100 // values of one in or not_in list
	MaxFilters      = 20  // conditions in one request
)

// FilterKind says how the value of a filterable field is read.
type FilterKind int

// Kinds of filterable field.
const (
	KindTime FilterKind = iota
	KindEmail
	KindPhone
	KindInt
	KindString
)

// Filter is one parsed `field=op|value` condition. Values hold time.Time,
// string or int64 according to the field's kind; between has two.
type Filter struct {
	Field  string
	Op     string
	Values []any
}

// ListQuery is a parsed collection request: filters and the page.
type ListQuery struct {
	Filters []Filter
	Page    int
	PerPage int
}

// Offset returns the number of rows before the page.
func (q ListQuery) Offset() int { return (q.Page - 1) * q.PerPage }

// ListSpec says what a collection endpoint accepts.
type ListSpec struct {
	Fields         map[string]FilterKind // filterable fields
	Reserved       []string              // query parameters that are not filters
	DefaultPerPage int
	Country        string // how to read local phone numbers in filters
}

// ParseListQuery reads page, per_page and the filters of a collection
// request. Any parameter that is neither reserved nor a filterable field is
// a bad request naming it.
func ParseListQuery(q url.Values, spec ListSpec) (ListQuery, error) {
	lq := ListQuery{Page: 1, PerPage: spec.DefaultPerPage}
	if s := q.Get("page"); s != "" {
		n, err := strconv.Atoi(s)
		// The bound keeps the row offset, (page-1)*per_page, from overflowing.
		if err != nil || n < 1 || n > math.MaxInt32 {
			return lq, Invalid("page", "The page must be an integer between 1 and 2147483647.")
		}
		lq.Page = n
	}
	if s := q.Get("per_page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 100 {
			return lq, Invalid("per_page", "The per page must be an integer between 1 and 100.")
		}
		lq.PerPage = n
	}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		base, _ := ListParamBase(k)
		if k == "page" || k == "per_page" || slices.Contains(spec.Reserved, base) {
			// Reserved parameters are read by the handler (QueryNames
			// refuses their malformed forms).
			continue
		}
		if base == "include" || base == "relationships" {
			return lq, Errorf(EBadRequest, "This endpoint takes no %s: %s=%s is not accepted.", base, k, strings.Join(q[k], ","))
		}
		kind, ok := spec.Fields[k]
		if !ok {
			return lq, Errorf(EBadRequest, "Filtering on %q is not supported here.", k)
		}
		if len(lq.Filters)+len(q[k]) > MaxFilters {
			return lq, Errorf(EBadRequest, "A request may hold at most %d filter conditions.", MaxFilters)
		}
		for _, raw := range q[k] {
			if err := CheckText("filter "+strconv.Quote(k), raw); err != nil {
				return lq, err
			}
			f, err := parseFilter(k, kind, raw, spec.Country)
			if err != nil {
				return lq, err
			}
			lq.Filters = append(lq.Filters, f)
		}
	}
	return lq, nil
}

func parseFilter(field string, kind FilterKind, raw, country string) (Filter, error) {
	op, val, found := strings.Cut(raw, "|")
	if !found {
		// A bare value means equality.
		op, val = OpEq, raw
	}
	if !slices.Contains(filterOps, op) {
		return Filter{}, Errorf(EBadRequest, "Unknown filter operator %q on %q; use one of %s.", op, field, strings.Join(filterOps, ", "))
	}
	var parts []string
	switch op {
	case OpBetween:
		parts = strings.Split(val, ",")
		if len(parts) != 2 {
			return Filter{}, Errorf(EBadRequest, "The filter %q with between needs two comma-separated values.", field)
		}
	case OpIn, OpNotIn:
		// Counted before splitting: a list may be megabytes long.
		if n := strings.Count(val, ",") + 1; n > MaxFilterValues {
			return Filter{}, Errorf(EBadRequest, "The filter %q lists %d values; %s and %s accept at most %d.", field, n, OpIn, OpNotIn, MaxFilterValues)
		}
		parts = strings.Split(val, ",")
	default:
		parts = []string{val}
	}
	f := Filter{Field: field, Op: op}
	for _, p := range parts {
		v, ok := parseFilterValue(kind, p, country)
		if !ok {
			return Filter{}, Errorf(EBadRequest, "The value %q of filter %q does not parse.", p, field)
		}
		f.Values = append(f.Values, v)
	}
	return f, nil
}

func parseFilterValue(kind FilterKind, raw, country string) (any, bool) {
	// Spaces around list items are the client's layout, not the value's.
	s := strings.TrimSpace(raw)
	switch kind {
	case KindTime:
		t, err := ParseTime(s)
		if i := strings.LastIndexByte(s, ' '); err != nil && i > len(time.DateOnly) {
			// A "+" arrives as a space when the client did not encode it.
			t, err = ParseTime(s[:i] + "+" + s[i+1:])
		}
		return t, err == nil
	case KindEmail:
		return strings.ToLower(s), s != ""
	case KindPhone:
		// A "+" arrives as a space when the client did not encode it.
		if strings.HasPrefix(raw, " ") && !strings.HasPrefix(s, "+") {
			s = "+" + s
		}
		p, ok := NormalizePhone(s, country)
		return p, ok
	case KindInt:
		n, err := strconv.ParseInt(s, 10, 64)
		return n, err == nil
	default:
		return s, s != ""
	}
}

// timeLayouts are the input forms of a timestamp: RFC 3339 with Z or
// +00:00, the +0000 form, and a bare date (midnight UTC).
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999-0700", "2006-01-02 15:04:05Z07:00", time.DateOnly}

// ParseTime reads a timestamp in any accepted form and returns it in UTC.
func ParseTime(s string) (time.Time, error) {
	var err error
	for _, l := range timeLayouts {
		var t time.Time
		if t, err = time.Parse(l, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, err
}

// FormatTime writes t as RFC 3339 in UTC with a +00:00 offset.
func FormatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05+00:00")
}

// ParseNames reads one comma-separated include or relationships value and
// rejects any name not in allowed. A request's parameters are read with
// QueryNames, which accepts every form clients send.
func ParseNames(param, raw string, allowed []string) (map[string]bool, error) {
	names := map[string]bool{}
	if raw == "" {
		return names, nil
	}
	for _, n := range strings.Split(raw, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if !slices.Contains(allowed, n) {
			if len(allowed) == 0 {
				return nil, Errorf(EBadRequest, "Unknown %s %q: this endpoint takes no %s.", param, n, param)
			}
			return nil, Errorf(EBadRequest, "Unknown %s %q; allowed: %s.", param, n, strings.Join(allowed, ", "))
		}
		names[n] = true
	}
	return names, nil
}

// QueryNames reads the list parameter param (include or relationships) of
// a query in every form clients send, all meaning the same: `param=a,b`,
// the parameter repeated, and PHP's `param[]=a&param[]=b` and
// `param[0]=a` (what http_build_query writes for an array). Every name
// must be in allowed (nil: the endpoint takes none), and a key that starts
// like the PHP form but is not one (`param[x]`) is refused too: a name
// the client meant is never dropped silently.
func QueryNames(q url.Values, param string, allowed []string) (map[string]bool, error) {
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	names := map[string]bool{}
	for _, k := range keys {
		base, ok := ListParamBase(k)
		if base != param {
			continue
		}
		if !ok {
			return nil, Errorf(EBadRequest, "The query parameter %q is not a list form of %s; send %s=a,b or %s[]=a.", k, param, param, param)
		}
		for _, raw := range q[k] {
			got, err := ParseNames(param, raw, allowed)
			if err != nil {
				return nil, err
			}
			for n := range got {
				names[n] = true
			}
		}
	}
	return names, nil
}

// ListParamBase returns the parameter a query key names: the key itself,
// or name for PHP's array forms `name[]` and `name[N]`. ok is false for a
// key that opens a bracket without being one of those forms (`name[x]`),
// whose base is still returned so that it can be refused by name.
func ListParamBase(key string) (base string, ok bool) {
	i := strings.IndexByte(key, '[')
	if i < 0 {
		return key, true
	}
	base, idx := key[:i], key[i+1:]
	idx, closed := strings.CutSuffix(idx, "]")
	if !closed || strings.ContainsAny(idx, "[]") {
		return base, false
	}
	for _, c := range idx {
		if c < '0' || c > '9' {
			return base, false
		}
	}
	return base, true
}
