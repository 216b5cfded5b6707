package web

import (
	"net/http"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// A long pick (products, categories, branches, tier levels) has a search
// box. With setup.js it filters the list as one types; without scripts
// its Find button posts the form back, which comes again with the list
// narrowed to what is ticked and what the search found, every value typed
// kept. Products are found by the product search of the products page
// (name or SKU); the other lists, short and read whole, by their labels.
// Nothing is saved until the form is.

// longPick is how many options make a pick long enough for a search box.
const longPick = 8

// foundKey is where pickSearches puts a field's narrowed list in sources,
// apart from the sources' own names.
func foundKey(field string) string { return "found:" + field }

// pickSearches narrows, for each pick whose search box holds a text, the
// options it offers (in sources under foundKey) to those ticked and those
// the search found, and says what it found in words (under
// foundKey+"_note").
func (s *Server) pickSearches(r *http.Request, a loyalty.Actor, fields []setupField, form formValues, chosen []string,
	sources map[string][]option) error {
	for _, fd := range fields {
		if fd.Kind != kindPick && fd.Kind != kindBranches {
			continue
		}
		q := strings.TrimSpace(form[fd.Name+"_q"])
		if q == "" {
			continue
		}
		ticked := map[string]bool{}
		values := strings.Split(form[fd.Name], "\n")
		if fd.Kind == kindBranches {
			values = chosen
		}
		for _, v := range values {
			ticked[strings.TrimSpace(v)] = true
		}
		src := pickSource(fd)
		var picks []option
		for _, o := range sources[src] {
			if ticked[o.Value] {
				picks = append(picks, o)
			}
		}
		found, total, err := s.searchPick(r, a, src, q, sources[src])
		if err != nil {
			return err
		}
		shown := 0
		for _, o := range found {
			if !ticked[o.Value] {
				picks = append(picks, o)
			}
			shown++
		}
		note := "Found for “" + q + "”: tick those to add. Empty the box and Find to see all."
		switch {
		case total == 0:
			note = "Nothing found for “" + q + "”. Empty the box and Find to see all."
		case total > shown:
			note = "The first " + intText(int64(shown)) + " of " + intText(int64(total)) + " found for “" + q + "”: tick those to add, or type more."
		}
		sources[foundKey(fd.Name)] = picks
		sources[foundKey(fd.Name)+"_note"] = []option{{"", note}}
	}
	return nil
}

// pickSource is the source of the options a pick offers.
func pickSource(fd setupField) string {
	if fd.Kind == kindBranches {
		return "branches"
	}
	return fd.Source
}

// searchPick returns the options of src that the text q finds, and how
// many it found: for products the first page of the product search, for
// the others those of all whose label holds q.
func (s *Server) searchPick(r *http.Request, a loyalty.Actor, src, q string, all []option) ([]option, int, error) {
	if src == "products" {
		page, err := s.Program.Products(r.Context(), a, q, 1)
		if err != nil {
			return nil, 0, err
		}
		out := make([]option, len(page.Products))
		for i, p := range page.Products {
			out[i] = productOption(p)
		}
		return out, page.Total, nil
	}
	var out []option
	lower := strings.ToLower(q)
	for _, o := range all {
		if strings.Contains(strings.ToLower(o.Label), lower) {
			out = append(out, o)
		}
	}
	return out, len(out), nil
}

// productOption is a product as a pick offers it: its name and SKU.
func productOption(p loyalty.Product) option {
	label := p.Title
	if p.SKU != "" {
		label += " · " + p.SKU
	}
	return option{intText(p.ID), label}
}
