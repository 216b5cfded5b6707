package web

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
)

// How a setup form is drawn: each field with its value, choices and
// messages, the fields laid out in rows and sections.

// fieldView is a field with its value and messages, as the template draws
// it.
type fieldView struct {
	setupField
	Value  string
	Values map[string]bool // the chosen of a pick, or branches
	Errors []string
	Picks  []option // what a pick or a ref offers (the branches, ...)
	// Choices are a one-of field's options drawn as radio buttons (a
	// select cuts off a long label on a phone): a ref's, or a select's
	// standing on a line of its own.
	Choices []choice
	// Query is what a customers field's or a long pick's search box
	// holds, and Note what the search found, in words.
	Query, Note string
	// Search: a pick long enough for a search box (program_picks.go),
	// whose placeholder is SearchHint.
	Search     bool
	SearchHint string
}

// choice is one radio button of a one-of field.
type choice struct {
	option
	Checked bool
}

// choicesOf are the radio buttons of the field fv, the one of its value
// checked; a select with none of its options as value checks the first,
// as the select did, and a ref that may be cleared offers None first.
func choicesOf(fv fieldView) []choice {
	opts := fv.Options
	if fv.Kind == kindRef {
		opts = fv.Picks
		if fv.Clear {
			opts = append([]option{{"", "None"}}, opts...)
		}
	}
	out := make([]choice, len(opts))
	found := false
	for i, o := range opts {
		out[i] = choice{option: o, Checked: o.Value == fv.Value}
		found = found || out[i].Checked
	}
	if !found && fv.Kind != kindRef && len(out) > 0 {
		out[0].Checked = true
	}
	return out
}

// fieldRow is the fields drawn on one line, under the heading of the
// section it starts, if any.
type fieldRow struct {
	Heading, Lead string
	Fields        []fieldView
}

// formValues are a form's values by field name; a field of several values
// (a pick) holds them one a line.
type formValues = map[string]string

// postedValues are a posted form's values as formValues.
func postedValues(f url.Values) formValues {
	form := formValues{}
	for key, vs := range f {
		form[key] = strings.Join(vs, "\n")
	}
	return form
}

// drawFields lays the fields out with their values and messages; sources
// are what the picks and refs offer, by Source ("branches" for the
// branches fields).
func drawFields(fields []setupField, form formValues, chosen []string, errs map[string][]string, sources map[string][]option, currency string) []fieldRow {
	var rows []fieldRow
	for i, fd := range fields {
		fv := fieldView{setupField: fd, Value: form[fd.Name], Errors: errs[fd.Name], Values: map[string]bool{}}
		if fv.Unit == unitCurrency {
			fv.Unit = currency
		}
		switch fd.Kind {
		case kindBranches:
			fv.Picks = sources["branches"]
			for _, c := range chosen {
				fv.Values[c] = true
			}
		case kindPick, kindRef:
			fv.Picks = sources[fd.Source]
		}
		if fd.Kind == kindBranches || fd.Kind == kindPick {
			fv.Query = form[fd.Name+"_q"]
			fv.Search = len(fv.Picks) > longPick || strings.TrimSpace(fv.Query) != ""
			fv.SearchHint = "Name"
			if fd.Source == "products" {
				fv.SearchHint = "Name or SKU"
			}
			if found, ok := sources[foundKey(fd.Name)]; ok {
				fv.Picks = found
				fv.Note = sources[foundKey(fd.Name)+"_note"][0].Label
			}
		}
		if fd.Kind == kindCustomers {
			fv.Picks, fv.Query = sources[fd.Name], form[fd.Name+"_q"]
			if n := sources[fd.Name+"_note"]; len(n) > 0 {
				fv.Note = n[0].Label
			}
		}
		if fd.Kind == kindRef || ((fd.Kind == kindSelect || fd.Kind == kindIntSelect) && fd.Row == "") {
			fv.Choices = choicesOf(fv)
		}
		if fd.Kind == kindBranches || fd.Kind == kindPick || fd.Kind == kindCustomers {
			for _, c := range strings.Split(fv.Value, "\n") {
				if c != "" {
					fv.Values[c] = true
				}
			}
		}
		if i > 0 && fd.Row != "" && fd.Row == fields[i-1].Row && fd.Section == "" {
			rows[len(rows)-1].Fields = append(rows[len(rows)-1].Fields, fv)
			continue
		}
		rows = append(rows, fieldRow{Heading: fd.Section, Lead: fd.Lead, Fields: []fieldView{fv}})
	}
	return rows
}

// joined writes a list as a pick's form value: one a line.
func joined[T any](list []T) string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(jsonText(v), `"`), `"`))
	}
	return strings.Join(out, "\n")
}

// jsonText is v as JSON.
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// errorsFor files each message under the field of fields it is about: a
// list's item ("conditions.products.2", "schedule.days.0") under the list.
func errorsFor(errs map[string][]string, fields []setupField) map[string][]string {
	out := map[string][]string{}
	for name, msgs := range errs {
		to := name
		for n := name; n != ""; {
			if slices.ContainsFunc(fields, func(fd setupField) bool { return fd.Name == n }) {
				to = n
				break
			}
			i := strings.LastIndex(n, ".")
			if i < 0 {
				break
			}
			n = n[:i]
		}
		out[to] = append(out[to], msgs...)
	}
	return out
}
