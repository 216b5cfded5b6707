package loyalty

import (
	"slices"
	"strconv"
	"strings"
)

// The columns of an import file are the API's own field names: a
// transactions file has the fields of POST /transactions (nested objects
// written with a dot: customer.email, transaction_details.custom_field_1),
// a customers file those of POST /customers, plus the opening balance
// (balance.points, balance.giftcard, as GET /customers/{id} shows them).
// Column names are matched without regard to case or surrounding spaces;
// an empty cell leaves its field out; columns with an empty name are
// ignored; any other column is refused, so no data is silently dropped.
// The console reads other names through a mapping (import_mapping.go).

// ImportCol is a column an import file may have.
type ImportCol struct {
	Name string
	Doc  string // what it holds, for the console and the docs
	set  func(r *importFields, cell string, v Validation)
}

// importFields gathers one row's cells into the API's inputs.
type importFields struct {
	tx       TransactionInput
	customer CustomerRef
	details  TransactionDetails
	hasRef   bool
	hasDet   bool
	person   CustomerInput
	address  AddressInput
	hasAddr  bool
	points   int64 // opening points balance
	giftcard Money // opening gift-card balance
	product  ProductInput
	// consent is the marketing consent the row's consents.* columns give
	// (nil when they are all empty: no record).
	consent *ContactChannels
}

// consentColumn reads one consents.allow_* cell: true or false, empty for
// nothing said (a channel not said is not consented).
func consentColumn(name string, to func(*ContactChannels) *bool) func(*importFields, string, Validation) {
	return func(r *importFields, cell string, v Validation) {
		b, err := strconv.ParseBool(strings.ToLower(strings.TrimSpace(cell)))
		if err != nil {
			v.Add(name, "The "+name+" field must be true or false (empty: not said).")
			return
		}
		if r.consent == nil {
			r.consent = &ContactChannels{}
		}
		*to(r.consent) = b
	}
}

func text(dst func(r *importFields) *Opt[string]) func(*importFields, string, Validation) {
	return func(r *importFields, cell string, _ Validation) { *dst(r) = Some(cell) }
}

func refText(dst func(c *CustomerRef) *Opt[string]) func(*importFields, string, Validation) {
	return func(r *importFields, cell string, _ Validation) { *dst(&r.customer) = Some(cell); r.hasRef = true }
}

func detail(dst func(d *TransactionDetails) *string) func(*importFields, string, Validation) {
	return func(r *importFields, cell string, _ Validation) { *dst(&r.details) = cell; r.hasDet = true }
}

func addrText(dst func(a *AddressInput) *Opt[string]) func(*importFields, string, Validation) {
	return func(r *importFields, cell string, _ Validation) { *dst(&r.address) = Some(cell); r.hasAddr = true }
}

// whole reads a whole number, naming field when it is not one.
func whole(v Validation, field, cell string) (int64, bool) {
	n, err := strconv.ParseInt(cell, 10, 64)
	if err != nil {
		v.Add(field, "The "+field+" must be a whole number.")
		return 0, false
	}
	return n, true
}

func wholeInto(field string, dst func(r *importFields) *Opt[int64]) func(*importFields, string, Validation) {
	return func(r *importFields, cell string, v Validation) {
		if n, ok := whole(v, field, cell); ok {
			*dst(r) = Some(n)
		}
	}
}

func idRef(field string, dst func(r *importFields) *Opt[IntRef]) func(*importFields, string, Validation) {
	return func(r *importFields, cell string, v Validation) {
		if n, ok := whole(v, field, cell); ok {
			*dst(r) = Some(IntRef{ID: Some(n)})
		}
	}
}

func money(field string, set func(r *importFields, m Money)) func(*importFields, string, Validation) {
	return func(r *importFields, cell string, v Validation) {
		m, err := ParseMoney(cell)
		if err != nil {
			v.Add(field, "The "+field+" must be a sum of money with at most 2 decimals, such as 12.50.")
			return
		}
		set(r, m)
	}
}

func coord(field string, dst func(a *AddressInput) *Opt[float64]) func(*importFields, string, Validation) {
	return func(r *importFields, cell string, v Validation) {
		f, err := strconv.ParseFloat(cell, 64)
		if err != nil {
			v.Add(field, "The "+field+" must be a number.")
			return
		}
		*dst(&r.address) = Some(f)
		r.hasAddr = true
	}
}

// TransactionColumns are the columns of a transactions import.
var TransactionColumns = []ImportCol{
	{"intent", "what the entry does, as POST /transactions: " + strings.Join(Intents, ", "), text(func(r *importFields) *Opt[string] { return &r.tx.Intent })},
	{"type", "the reference platform's name for intent", text(func(r *importFields) *Opt[string] { return &r.tx.Type })},
	{"customer.id", "the customer, by id", refText(func(c *CustomerRef) *Opt[string] { return &c.ID })},
	{"customer.email", "or by e-mail (an unknown one creates the customer)", refText(func(c *CustomerRef) *Opt[string] { return &c.Email })},
	{"customer.phone", "or by phone", refText(func(c *CustomerRef) *Opt[string] { return &c.Phone })},
	{"customer.country_code", "the phone's country (ISO 3166-1 alpha-2)", refText(func(c *CustomerRef) *Opt[string] { return &c.CountryCode })},
	{"amount", "the purchase or payment, such as 12.50", money("amount", func(r *importFields, m Money) { r.tx.Amount = Some(m) })},
	{"points", "points (redeem, adjust_points_balance, or a reward in points)", wholeInto("points", func(r *importFields) *Opt[int64] { return &r.tx.Points })},
	{"visits", "visits, for a business that rewards visits", wholeInto("visits", func(r *importFields) *Opt[int64] { return &r.tx.Visits })},
	{"created_at", "when it happened (RFC 3339, not in the future); now when empty", text(func(r *importFields) *Opt[string] { return &r.tx.CreatedAt })},
	{"branch.id", "the branch; the import's branch when empty", func(r *importFields, cell string, _ Validation) {
		r.tx.Branch = Some(StringRef{ID: Some(cell)})
	}},
	{"offer.id", "the offer (get_coupon, or a reward under an offer)", idRef("offer.id", func(r *importFields) *Opt[IntRef] { return &r.tx.Offer })},
	{"coupon.id", "the coupon (claim_coupon)", idRef("coupon.id", func(r *importFields) *Opt[IntRef] { return &r.tx.Coupon })},
	{"giftcard.id", "the gift card (purchase_giftcard_prepaid)", idRef("giftcard.id", func(r *importFields) *Opt[IntRef] { return &r.tx.Giftcard })},
	{"receipt.number", "the business's receipt number", func(r *importFields, cell string, _ Validation) {
		r.tx.Receipt = Some(ReceiptInput{Number: Some(cell)})
	}},
	{"comments", "a note kept with the entry", text(func(r *importFields) *Opt[string] { return &r.tx.Comments })},
	{"transaction_details.external_order_id", "the order's id in the business's system", detail(func(d *TransactionDetails) *string { return &d.ExternalOrderID })},
	{"transaction_details.custom_field_1", "a reference of the business's own", detail(func(d *TransactionDetails) *string { return &d.CustomField1 })},
	{"transaction_details.custom_field_2", "", detail(func(d *TransactionDetails) *string { return &d.CustomField2 })},
	{"transaction_details.custom_field_3", "", detail(func(d *TransactionDetails) *string { return &d.CustomField3 })},
	{"transaction_details.custom_field_4", "", detail(func(d *TransactionDetails) *string { return &d.CustomField4 })},
	{"transaction_details.custom_field_5", "", detail(func(d *TransactionDetails) *string { return &d.CustomField5 })},
}

// CustomerColumns are the columns of a customers import.
var CustomerColumns = []ImportCol{
	{"email", "e-mail (email or phone is required)", text(func(r *importFields) *Opt[string] { return &r.person.Email })},
	{"phone", "phone number", text(func(r *importFields) *Opt[string] { return &r.person.Phone })},
	{"country_code", "the phone's country (ISO 3166-1 alpha-2); the import's when empty", text(func(r *importFields) *Opt[string] { return &r.person.CountryCode })},
	{"first_name", "", text(func(r *importFields) *Opt[string] { return &r.person.FirstName })},
	{"last_name", "", text(func(r *importFields) *Opt[string] { return &r.person.LastName })},
	{"birth_date", "YYYY-MM-DD", text(func(r *importFields) *Opt[string] { return &r.person.BirthDate })},
	{"language", strings.Join(Languages, ", "), text(func(r *importFields) *Opt[string] { return &r.person.Language })},
	{"gender", strings.Join(Genders, ", "), text(func(r *importFields) *Opt[string] { return &r.person.Gender })},
	{"enabled", "true or false; true when empty", func(r *importFields, cell string, v Validation) {
		b, err := strconv.ParseBool(strings.ToLower(cell))
		if err != nil {
			v.Add("enabled", "The enabled field must be true or false.")
			return
		}
		r.person.Enabled = Some(b)
	}},
	{"address.street", "", addrText(func(a *AddressInput) *Opt[string] { return &a.Street })},
	{"address.city", "", addrText(func(a *AddressInput) *Opt[string] { return &a.City })},
	{"address.region", "", addrText(func(a *AddressInput) *Opt[string] { return &a.Region })},
	{"address.country", "", addrText(func(a *AddressInput) *Opt[string] { return &a.Country })},
	{"address.country_code", "", addrText(func(a *AddressInput) *Opt[string] { return &a.CountryCode })},
	{"address.zip_code", "", addrText(func(a *AddressInput) *Opt[string] { return &a.ZipCode })},
	{"address.lat", "", coord("address.lat", func(a *AddressInput) *Opt[float64] { return &a.Lat })},
	{"address.long", "", coord("address.long", func(a *AddressInput) *Opt[float64] { return &a.Long })},
	{"balance.points", "opening points balance (0 or more)", func(r *importFields, cell string, v Validation) {
		if n, ok := whole(v, "balance.points", cell); ok {
			if n < 0 || n > maxPoints {
				v.Add("balance.points", "The balance.points must be a whole number from 0 to "+itoa(maxPoints)+".")
			}
			r.points = n
		}
	}},
	{"balance.giftcard", "opening gift-card balance, such as 25.00", money("balance.giftcard", func(r *importFields, m Money) { r.giftcard = m })},
	{"consents.allow_email", "true when the customer agreed to offers by e-mail; recorded as their marketing consent (source import)",
		consentColumn("consents.allow_email", func(c *ContactChannels) *bool { return &c.Email })},
	{"consents.allow_sms", "true when they agreed to offers by text message", consentColumn("consents.allow_sms", func(c *ContactChannels) *bool { return &c.SMS })},
	{"consents.allow_push", "true when they agreed to offers in the app", consentColumn("consents.allow_push", func(c *ContactChannels) *bool { return &c.Push })},
}

// ProductColumns are the columns of a products import: the fields of
// POST /products, a row upserting its product by SKU as POST
// /products/batch does.
var ProductColumns = []ImportCol{
	{"product_sku", "the product's SKU (required): a product with it is updated, else one is created",
		text(func(r *importFields) *Opt[string] { return &r.product.SKU })},
	{"title", "its name (required for a new product)", text(func(r *importFields) *Opt[string] { return &r.product.Title })},
	{"description", "", text(func(r *importFields) *Opt[string] { return &r.product.Description })},
	{"product_actual_price", "the price it sells at, such as 2.40",
		money("product_actual_price", func(r *importFields, m Money) { r.product.ActualPrice = Some(m) })},
	{"product_real_price", "its list price", money("product_real_price", func(r *importFields, m Money) { r.product.RealPrice = Some(m) })},
	{"category_id", "the id of one of the business's product categories", func(r *importFields, cell string, v Validation) {
		if n, ok := whole(v, "category_id", cell); ok {
			r.product.CategoryID = Some(n)
		}
	}},
	{"tags", "tags separated by |, such as vegan|bakery", func(r *importFields, cell string, _ Validation) {
		r.product.Tags = Some(strings.Split(cell, "|"))
	}},
}

// importColumns returns the columns of an import kind.
func importColumns(kind string) []ImportCol {
	switch kind {
	case ImportCustomers:
		return CustomerColumns
	case ImportProducts:
		return ProductColumns
	}
	return TransactionColumns
}

// importHeader maps a file's header to the columns it fills: nil for a
// column with no name, or one ignored. Without a mapping (m nil) a column
// is read as the API's field of its name, and a column the import does
// not know is refused. Through a mapping, a column is read as the field
// the mapping gives it; the columns nobody chose a field for are returned
// (unmapped) and read as ignored, for a preview only. It refuses a column
// named twice, a field filled twice, and a header that fills nothing.
func importHeader(kind string, header []string, m ImportMapping) (cols []*ImportCol, unmapped []string, err error) {
	all := importColumns(kind)
	out := make([]*ImportCol, len(header))
	seen := map[string]bool{}
	filled := map[string]bool{}
	for i, h := range header {
		name := ImportColumnKey(h)
		if name == "" {
			continue
		}
		if seen[name] {
			return nil, nil, Invalid("file", "The column \""+storable(h)+"\" appears twice.")
		}
		seen[name] = true
		field := name
		if m != nil {
			field = m[name]
			if field == "" {
				unmapped = append(unmapped, strings.TrimSpace(storable(h)))
				continue
			}
			if field == ImportIgnore {
				continue
			}
		}
		j := slices.IndexFunc(all, func(c ImportCol) bool { return c.Name == field })
		if j < 0 && m == nil {
			return nil, nil, Invalid("file", "The column \""+storable(h)+"\" is not one a "+kind+" import reads; name the columns as the API names its fields: "+columnNames(all)+".")
		} else if j < 0 {
			return nil, nil, Invalid("mapping", "The column \""+storable(h)+"\" is mapped to "+field+", which a "+kind+" import does not read.")
		}
		if filled[field] {
			return nil, nil, Invalid("file", "Two columns fill "+field+"; keep one.")
		}
		filled[field], out[i] = true, &all[j]
	}
	if len(filled) == 0 && len(unmapped) == 0 {
		return nil, nil, Invalid("file", "The first row must name the columns: "+columnNames(all)+".")
	}
	return out, unmapped, nil
}

// storable is a header cell as an error may quote it.
func storable(h string) string { return strings.ToValidUTF8(strings.ReplaceAll(h, "\x00", ""), "?") }

func columnNames(cols []ImportCol) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}
