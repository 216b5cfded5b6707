package web

import (
	"encoding/json"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// The program's setup forms are drawn from a list of fields, and a posted
// form becomes the JSON body the API would receive for the same object:
// the service reads it with the API's rules and answers with the API's
// messages, which the form shows beside the fields they name. The pages
// only read the text typed (a number, an amount, a date); every rule is
// the service's.

// setupField is one field of a setup form. Its name is the API's field
// name; a dotted name nests ("address.city", "tier_levels.0.name").
type setupField struct {
	Name, Label, Kind, Hint string
	Options                 []option // for select and intselect
	Row                     string   // fields with the same Row share a line
	// Clear sends an empty field as null (an empty list for a pick), which
	// clears the saved value (an end date, a limit); other empty fields
	// keep theirs.
	Clear bool
	// Source names the business's things a pick or a ref offers
	// (sourceOptions): "products", "categories", "branches", ...
	Source string
	// Ints: a pick's or a ref's values are numbers (ids).
	Ints bool
	// Section starts a part of the form with this heading; Lead is the
	// line under it.
	Section, Lead string
	// Unit is written beside the field's box: points, days, %, or
	// unitCurrency for the business's currency.
	Unit string
}

// unitCurrency is the Unit of an amount of the business's currency.
const unitCurrency = "¤"

// option is one choice of a select.
type option struct{ Value, Label string }

// Field kinds.
const (
	kindText      = "text"
	kindTextarea  = "textarea"
	kindInt       = "int"
	kindMoney     = "money"
	kindBool      = "bool"
	kindDate      = "date"
	kindSelect    = "select"    // a string
	kindIntSelect = "intselect" // a number
	kindBranches  = "branches"  // several branch ids
	kindLines     = "lines"     // a list, one item a line
	kindHidden    = "hidden"    // a number carried along (a level's id)
	kindPick      = "pick"      // several things of Source, as checkboxes
	kindRef       = "ref"       // one thing of Source, as radio buttons
	kindTags      = "tags"      // a list typed comma-separated
	kindTime      = "time"      // a time of day, HH:MM
	kindConst     = "const"     // a text carried along (a rule's effect type)
	kindCustomers = "customers" // several customer ids, found by a search and ticked
)

// formBody turns a posted setup form into the API's JSON body. Empty
// fields are left out, so they keep their value (or the default); a text
// that is not the number, amount or date its field takes is named in the
// returned messages instead.
func formBody(fields []setupField, f url.Values, loc *time.Location) ([]byte, map[string][]string) {
	root := map[string]any{}
	bad := map[string][]string{}
	for _, fd := range fields {
		raw := strings.TrimSpace(f.Get(fd.Name))
		if raw == "" && fd.Clear {
			empty := json.RawMessage("null")
			if fd.Kind == kindPick || fd.Kind == kindBranches || fd.Kind == kindCustomers {
				empty = json.RawMessage("[]")
			}
			setPath(root, strings.Split(fd.Name, "."), empty)
			continue
		}
		var v any
		switch fd.Kind {
		case kindBool:
			v = f.Get(fd.Name) == "on" || f.Get(fd.Name) == "true"
		case kindBranches, kindCustomers:
			if list := f[fd.Name]; len(list) > 0 {
				v = list
			}
		case kindPick, kindRef:
			list, ok := pickValues(f[fd.Name], fd.Ints)
			if !ok {
				bad[fd.Name] = append(bad[fd.Name], "Choose from the list.")
				continue
			}
			if len(list) > 0 && fd.Kind == kindRef {
				v = list[0]
			} else if len(list) > 0 {
				v = list
			}
		case kindTags:
			var list []string
			for _, t := range strings.Split(raw, ",") {
				if t = strings.TrimSpace(t); t != "" {
					list = append(list, t)
				}
			}
			if len(list) > 0 {
				v = list
			}
		case kindLines:
			var list []string
			for _, line := range strings.Split(raw, "\n") {
				if line = strings.TrimSpace(line); line != "" {
					list = append(list, line)
				}
			}
			if len(list) > 0 {
				v = list
			}
		case kindInt, kindIntSelect, kindHidden:
			if raw == "" {
				continue
			}
			n, err := strconv.ParseInt(raw, 10, 64)
			if err != nil {
				bad[fd.Name] = append(bad[fd.Name], "Enter a whole number.")
				continue
			}
			v = n
		case kindMoney:
			if raw == "" {
				continue
			}
			m, err := loyalty.ParseMoney(raw)
			if err != nil {
				bad[fd.Name] = append(bad[fd.Name], "Enter an amount such as 12.50.")
				continue
			}
			v = json.RawMessage(m.String())
		case kindDate:
			if raw == "" {
				continue
			}
			t, err := time.ParseInLocation(time.DateOnly, raw, loc)
			if err != nil {
				bad[fd.Name] = append(bad[fd.Name], "Enter a date as YYYY-MM-DD.")
				continue
			}
			v = loyalty.FormatTime(t)
		default:
			if raw == "" {
				continue
			}
			v = raw
		}
		if v != nil {
			setPath(root, strings.Split(fd.Name, "."), v)
		}
	}
	body, _ := json.Marshal(lists(root))
	return body, bad
}

// pickValues reads the values chosen of a pick or a ref: numbers when
// ints; ok is false when one is not.
func pickValues(values []string, ints bool) ([]any, bool) {
	var out []any
	for _, raw := range values {
		if raw = strings.TrimSpace(raw); raw == "" {
			continue
		}
		if !ints {
			out = append(out, raw)
			continue
		}
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}

// setPath sets v at path inside m, making the maps on the way.
func setPath(m map[string]any, path []string, v any) {
	for _, p := range path[:len(path)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}

// lists turns the maps whose keys are all numbers (tier_levels.0,
// tier_levels.1, ...) into lists in that order, leaving out the rows in
// which nothing but a carried id was filled.
func lists(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	keys := make([]int, 0, len(m))
	for k := range m {
		n, err := strconv.Atoi(k)
		if err != nil {
			for k, x := range m {
				m[k] = lists(x)
			}
			return m
		}
		keys = append(keys, n)
	}
	if len(keys) == 0 {
		return m
	}
	sort.Ints(keys)
	out := []any{}
	for _, k := range keys {
		row, _ := m[strconv.Itoa(k)].(map[string]any)
		if _, hasID := row["id"]; len(row) == 0 || (hasID && len(row) == 1) {
			continue
		}
		out = append(out, lists(row))
	}
	return out
}

// boolText and the other helpers write a saved value as its form field
// shows it.
func boolText(b bool) string {
	if b {
		return "true"
	}
	return ""
}

func intText(n int64) string { return strconv.FormatInt(n, 10) }

func moneyText(m loyalty.Money) string {
	if m == 0 {
		return ""
	}
	return m.String()
}

func dateText(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return ""
	}
	return t.In(loc).Format(time.DateOnly)
}
