package loyalty

import (
	"errors"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// importRow is one data row read into the API's input.
type importRow struct {
	num      int64
	tx       TransactionInput // a transactions import's row
	customer newCustomer      // a customers import's row, checked
	product  ProductInput     // a products import's row
	points   int64
	giftcard Money
	consent  *ContactChannels // a customers import's row's marketing consent, when its columns say one
}

// readRow reads a record into the input of im's kind and checks it with
// the API's validation (no I/O): a parse error of a cell and the domain's
// own messages are reported together.
func readRow(b Business, im Import, cols []*ImportCol, rec []string, num int64, now time.Time) (importRow, error) {
	r := importRow{num: num}
	if len(rec) != len(cols) {
		return r, Errorf(EInvalid, "The row has %d cells where the first row names %d columns.", len(rec), len(cols))
	}
	v := Validation{}
	var f importFields
	for i, cell := range rec {
		if cols[i] == nil || strings.TrimSpace(cell) == "" {
			continue
		}
		if !utf8.ValidString(cell) || strings.ContainsRune(cell, 0) {
			v.Add(cols[i].Name, "The "+cols[i].Name+" holds bytes that are not UTF-8 text.")
			continue
		}
		cols[i].set(&f, strings.TrimSpace(cell), v)
	}
	var err error
	if im.Kind == ImportProducts {
		if sku, _ := f.product.SKU.Value(); strings.TrimSpace(sku) == "" {
			v.Add("product_sku", "The product_sku is required: it names the product to create or update.")
		}
		r.product = f.product
		return r, v.Err()
	}
	if im.Kind == ImportCustomers {
		if _, ok := f.person.CountryCode.Value(); !ok && im.CountryCode != "" && f.person.Phone.Set {
			f.person.CountryCode = Some(im.CountryCode)
		}
		if f.hasAddr {
			f.person.Address = Some(f.address)
		}
		r.points, r.giftcard, r.consent = f.points, f.giftcard, f.consent
		if f.giftcard < 0 {
			v.Add("balance.giftcard", "The balance.giftcard may not be negative.")
		}
		r.customer, err = prepareCustomer(b, f.person)
	} else {
		if f.hasRef {
			if _, ok := f.customer.CountryCode.Value(); !ok && im.CountryCode != "" && f.customer.Phone.Set {
				f.customer.CountryCode = Some(im.CountryCode)
			}
			f.tx.Customer = Some(f.customer)
		}
		if f.hasDet {
			f.tx.Details = Some(f.details)
		}
		if _, ok := f.tx.Branch.Value(); !ok && im.BranchID != "" {
			f.tx.Branch = Some(StringRef{ID: Some(im.BranchID)})
		}
		r.tx = f.tx
		_, err = check(b, &f.tx, now)
	}
	return r, mergeInvalid(v, err)
}

// mergeInvalid joins the cells' parse errors with the domain's error; a
// field that did not parse keeps its own message, not the domain's
// "required".
func mergeInvalid(parse Validation, err error) error {
	if len(parse) == 0 {
		return err
	}
	var e *Error
	if err != nil && errors.As(err, &e) && e.Code == EInvalid {
		for f, msgs := range e.Fields {
			if !parse.Has(f) {
				parse[f] = msgs
			}
		}
	}
	return parse.Err()
}

// rowError is how a row's error is reported: the fields it names, each
// with its messages, or the error's message.
func rowError(num int64, err error) ImportRowError {
	out := ImportRowError{Row: num, Message: ErrorMessage(err)}
	var e *Error
	if errors.As(err, &e) && len(e.Fields) > 0 {
		for f := range e.Fields {
			out.Fields = append(out.Fields, f)
		}
		sort.Strings(out.Fields)
		parts := make([]string, 0, len(out.Fields))
		for _, f := range out.Fields {
			parts = append(parts, f+": "+strings.Join(e.Fields[f], " "))
		}
		out.Message = strings.Join(parts, "; ")
	}
	return out
}

// ImportRowKey is the idempotency key of a file's row: the import's kind,
// the SHA-256 of the file's content and the row's number.
func ImportRowKey(kind, fileHash string, row int64) string {
	return kind + ":" + fileHash + ":" + itoa64(row)
}

// ImportRowMark is what a run writes with a row it settles: the row's key
// (for a row imported), and its progress and lease, under its claim.
type ImportRowMark struct {
	BusinessID string
	ImportID   int64
	Claim      string
	Row        int64
	Key        string
	LeaseUntil time.Time
	written    bool
}

// The store's answers when a row's mark cannot be written.
var (
	// ErrRowImported: an import of the same file imported the row first.
	ErrRowImported = &Error{Code: EConflict, Message: "The row was imported already."}
	// ErrImportLeaseLost: another worker took the import over.
	ErrImportLeaseLost = &Error{Code: EConflict, Message: "The import's lease was lost."}
)
