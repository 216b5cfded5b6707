package loyalty

import (
	"context"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// A file from another system names its columns in its own words ("E-mail
// address", "First", "Points balance"). The console reads it through a
// mapping from each of the file's columns to a field of the import (or to
// ImportIgnore): guessed at the upload, corrected by the merchant, and
// remembered per business and kind of import for the next file. The API
// takes no mapping: its files name their columns as the API names its
// fields, and any other column is refused.

// ImportIgnore is the mapping of a column the merchant chose to leave out.
const ImportIgnore = "-"

// ImportMapping maps a file's columns, by ImportColumnKey, to the field
// each fills: a column name of the kind (ImportCol.Name), ImportIgnore, or
// "" while nobody chose. A nil mapping reads the header as the API does.
type ImportMapping map[string]string

// ImportColumnKey is how a mapping names a file's column: its header
// without a byte-order mark, surrounding spaces or case.
func ImportColumnKey(header string) string {
	return strings.ToLower(strings.TrimSpace(strings.TrimPrefix(header, "\ufeff")))
}

// Unmapped returns the columns nobody chose a field or Ignore for, in the
// order of header.
func (m ImportMapping) Unmapped(header []string) []string {
	var out []string
	for _, h := range header {
		if k := ImportColumnKey(h); k != "" && m != nil && m[k] == "" {
			out = append(out, strings.TrimSpace(h))
		}
	}
	return out
}

// importAliases are names other systems give the fields, as compared by
// compactName; a field's own name and its last part are aliases too.
var importAliases = map[string][]string{
	"email":                {"email", "emailaddress", "mail", "courriel", "emailid"},
	"phone":                {"phone", "phonenumber", "mobile", "mobilephone", "mobilenumber", "cell", "cellphone", "telephone", "tel", "phoneno"},
	"first_name":           {"first", "firstname", "givenname", "forename", "prenom"},
	"last_name":            {"last", "lastname", "surname", "familyname", "nom"},
	"birth_date":           {"birthday", "birthdate", "dateofbirth", "dob", "born"},
	"language":             {"language", "lang", "locale"},
	"gender":               {"gender", "sex"},
	"enabled":              {"enabled", "active"},
	"address.street":       {"street", "address", "addressline1", "streetaddress"},
	"address.city":         {"city", "town"},
	"address.region":       {"region", "state", "province", "county"},
	"address.zip_code":     {"zip", "zipcode", "postcode", "postalcode"},
	"balance.points":       {"points", "pointsbalance", "pointbalance", "balance", "loyaltypoints", "currentpoints"},
	"balance.giftcard":     {"giftcard", "giftcardbalance", "storecredit"},
	"customer.email":       {"email", "emailaddress", "customeremail"},
	"customer.phone":       {"phone", "phonenumber", "mobile", "customerphone"},
	"amount":               {"amount", "total", "sum", "spend", "spent", "ordertotal", "saleamount"},
	"created_at":           {"date", "datetime", "time", "createdat", "when", "orderdate"},
	"receipt.number":       {"receipt", "receiptnumber", "receiptno", "invoice", "invoicenumber"},
	"comments":             {"comment", "comments", "note", "notes"},
	"product_sku":          {"sku", "productsku", "code", "productcode", "itemcode"},
	"title":                {"title", "name", "productname", "item", "itemname"},
	"product_actual_price": {"price", "actualprice", "saleprice", "sellingprice"},
	"product_real_price":   {"listprice", "realprice", "regularprice", "rrp", "msrp"},
}

// compactName is a name with only its letters and digits, in lower case:
// "E-mail address" and "email_address" compare equal.
func compactName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// nameWords is a name's words, in lower case, a plural's s dropped.
func nameWords(s string) []string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for i, w := range words {
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			words[i] = strings.TrimSuffix(w, "s")
		}
	}
	return words
}

// similarity scores how well a file's column names a field, from 0 (not
// at all) to 1 (an alias, or the field's own name, written another way).
func similarity(header string, c ImportCol) float64 {
	h := compactName(header)
	if h == "" {
		return 0
	}
	names := append([]string{compactName(c.Name)}, importAliases[c.Name]...)
	if slices.Contains(names, h) {
		return 1
	}
	// Words in common, against the field's name and each alias written
	// as words (the aliases are compact, so only the name has words).
	hw, fw := nameWords(header), nameWords(c.Name)
	common := 0
	for _, w := range hw {
		if slices.Contains(fw, w) {
			common++
		}
	}
	if common == 0 {
		return 0
	}
	return 0.9 * float64(common) / float64(max(len(hw), len(fw)))
}

// minSimilarity is the least similarity a guess takes.
const minSimilarity = 0.5

// GuessImportMapping guesses the field of each of a file's columns: the
// field of the API's name first, then the business's remembered mapping
// for the kind (by ImportColumnKey), then the field whose name or aliases
// are most like the column's. A field is guessed for one column at most;
// a column with no good guess is left unmapped (""), for the merchant to
// choose, never ignored silently.
func GuessImportMapping(kind string, header []string, remembered map[string]string) ImportMapping {
	cols := importColumns(kind)
	known := func(f string) bool {
		return f == ImportIgnore || slices.ContainsFunc(cols, func(c ImportCol) bool { return c.Name == f })
	}
	m := ImportMapping{}
	taken := map[string]bool{}
	var keys []string
	for _, h := range header {
		k := ImportColumnKey(h)
		if k == "" {
			continue
		}
		if _, seen := m[k]; seen {
			continue // named twice: the header's reader refuses it
		}
		m[k] = ""
		keys = append(keys, k)
	}
	take := func(k, f string) {
		m[k] = f
		if f != ImportIgnore {
			taken[f] = true
		}
	}
	for _, k := range keys {
		if known(k) && k != ImportIgnore {
			take(k, k)
		}
	}
	for _, k := range keys {
		if f := remembered[k]; m[k] == "" && f != "" && known(f) && !taken[f] {
			take(k, f)
		}
	}
	type guess struct {
		key, field string
		score      float64
		order      int
	}
	var guesses []guess
	for i, k := range keys {
		if m[k] != "" {
			continue
		}
		for j, c := range cols {
			if s := similarity(k, c); s >= minSimilarity {
				guesses = append(guesses, guess{k, c.Name, s, i*len(cols) + j})
			}
		}
	}
	// The best guesses first, so that "Email" takes email before "Email
	// 2" could.
	sort.SliceStable(guesses, func(i, j int) bool {
		if guesses[i].score != guesses[j].score {
			return guesses[i].score > guesses[j].score
		}
		return guesses[i].order < guesses[j].order
	})
	for _, g := range guesses {
		if m[g.key] == "" && !taken[g.field] {
			take(g.key, g.field)
		}
	}
	return m
}

// checkMapping checks a mapping chosen for header: every column mapped to
// a field of the kind or ignored, no field chosen twice, some column
// read. Errors name the column's form field, "column.N" (N from 0).
func checkMapping(kind string, header []string, m ImportMapping) error {
	cols := importColumns(kind)
	v := Validation{}
	by := map[string]string{}
	read := false
	for i, h := range header {
		k := ImportColumnKey(h)
		if k == "" {
			continue
		}
		field := "column." + itoa(i)
		f := m[k]
		switch {
		case f == "":
			v.Add(field, "Choose the field this column holds, or Ignore.")
		case f == ImportIgnore:
		case !slices.ContainsFunc(cols, func(c ImportCol) bool { return c.Name == f }):
			v.Add(field, "Choose one of the fields of a "+kind+" import.")
		case by[f] != "" && ImportColumnKey(by[f]) != k:
			v.Add(field, "The column \""+strings.TrimSpace(by[f])+"\" fills this field already; choose another, or Ignore.")
		default:
			by[f], read = h, true
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	if !read {
		return Invalid("mapping", "Choose a field for at least one column.")
	}
	return nil
}

// Open returns the columns (by key) nobody chose a field or Ignore for,
// sorted.
func (m ImportMapping) Open() []string {
	var out []string
	for k, f := range m {
		if f == "" {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// Map reads an uploaded import's file again through the mapping chosen
// for its columns (chosen[i] for the header's i-th column: a field,
// ImportIgnore, or ""), replaces its preview, and remembers the mapping
// for the business's next file of the kind. A column without a choice, a
// field chosen twice, or nothing read is EInvalid naming "column.N" or
// "mapping"; an import started already, or mapped again meanwhile, is
// EConflict.
//
// The file is read and checked outside any transaction, however long it
// takes: the rows in error are written as found under a new check of the
// import, which nobody reads, and one short transaction then makes that
// check the preview (RemapImport). Until it commits, the preview is the
// one before, whole; the check's rows are dropped when it fails, the
// superseded ones once it succeeds.
func (s *ImportService) Map(ctx context.Context, b Business, id int64, chosen []string) (Import, error) {
	im, err := s.Store.Import(ctx, b.ID, id)
	if err != nil {
		return im, asNotFound(err, importNotFound)
	}
	if im.Status != ImportUploaded {
		return im, Errorf(EConflict, "The import has started; its columns can no longer change.")
	}
	rows, err := openRows(newChunkReader(ctx, s.Store, im))
	if err != nil {
		return im, err
	}
	m := ImportMapping{}
	for i, h := range rows.header {
		if k := ImportColumnKey(h); k != "" && i < len(chosen) {
			m[k] = strings.TrimSpace(chosen[i])
		} else if k != "" {
			m[k] = ""
		}
	}
	if err := checkMapping(im.Kind, rows.header, m); err != nil {
		return im, err
	}
	check, err := s.Store.BeginImportCheck(ctx, b.ID, im.ID)
	if err != nil {
		return im, err
	}
	checked := im
	err = s.preview(ctx, b, &checked, newChunkReader(ctx, s.Store, im), func([]string) ImportMapping { return m },
		func(errs []ImportRowError) error { return s.Store.AddImportCheckErrors(ctx, im.ID, check, errs) })
	if err == nil {
		err = s.Store.RemapImport(ctx, &checked, m, check)
	}
	if err != nil {
		// The check's rows are nobody's: dropped even when the request
		// is gone (a later successful check drops them otherwise).
		_ = s.Store.DropImportChecks(context.WithoutCancel(ctx), im.ID, check, check)
		return im, err
	}
	// The checks before this one are superseded; one left by a failure
	// here is dropped by the next.
	_ = s.Store.DropImportChecks(ctx, im.ID, 0, check-1)
	return checked, nil
}

// MappingText is a mapping as the audit log shows it: each column of
// header with the field it fills, or "ignored".
func MappingText(header []string, m ImportMapping) map[string]string {
	out := map[string]string{}
	for _, h := range header {
		k := ImportColumnKey(h)
		if k == "" {
			continue
		}
		switch f := m[k]; f {
		case ImportIgnore:
			out[strings.TrimSpace(h)] = "ignored"
		default:
			out[strings.TrimSpace(h)] = f
		}
	}
	return out
}
