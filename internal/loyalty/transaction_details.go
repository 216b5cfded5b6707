package loyalty

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// PATCH /transactions/{id}/details edits the business's own references on
// a ledger entry and nothing else: the points, amounts and kind of an
// entry are never changed (a correction is a new entry), but an order id
// known only after the sale may be added to it.

// DetailsFields are the fields of transaction_details, in the reference's order.
var DetailsFields = []string{"external_order_id", "custom_field_1", "custom_field_2", "custom_field_3", "custom_field_4", "custom_field_5"}

// field returns the address of the detail named name.
func (d *TransactionDetails) field(name string) *string {
	switch name {
	case "external_order_id":
		return &d.ExternalOrderID
	case "custom_field_1":
		return &d.CustomField1
	case "custom_field_2":
		return &d.CustomField2
	case "custom_field_3":
		return &d.CustomField3
	case "custom_field_4":
		return &d.CustomField4
	case "custom_field_5":
		return &d.CustomField5
	}
	return nil
}

// values are the details by field name, for the audit log.
func (d TransactionDetails) values() map[string]string {
	m := make(map[string]string, len(DetailsFields))
	for _, f := range DetailsFields {
		m[f] = *d.field(f)
	}
	return m
}

// DetailsPatch is a checked body of PATCH /transactions/{id}/details: the
// value of each field it sends, "" for a field sent as null (cleared).
type DetailsPatch map[string]string

// ParseDetailsPatch checks a body of PATCH /transactions/{id}/details: an
// object of details fields, flat as the reference's example or under
// transaction_details as its table names them. A field that is not a
// detail is refused by name, as is a value that is not a string of 1 to
// 255 characters or null.
func ParseDetailsPatch(body map[string]json.RawMessage) (DetailsPatch, error) {
	v := Validation{}
	fields, prefix := body, ""
	if inner, ok := body["transaction_details"]; ok {
		prefix = "transaction_details."
		for k := range body {
			if k != "transaction_details" {
				v.Add(k, "The "+k+" field is not a transaction detail; only "+strings.Join(DetailsFields, ", ")+" may be changed.")
			}
		}
		fields = nil
		if err := json.Unmarshal(inner, &fields); err != nil || fields == nil {
			v.Add("transaction_details", "The transaction_details field must be an object.")
		}
	}
	p := DetailsPatch{}
	for k, raw := range fields {
		name := prefix + k
		if !slices.Contains(DetailsFields, k) {
			v.Add(name, "The "+name+" field is not a transaction detail; only "+strings.Join(DetailsFields, ", ")+" may be changed.")
			continue
		}
		if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			p[k] = ""
			continue
		}
		var s string
		switch err := json.Unmarshal(raw, &s); {
		case err != nil:
			v.Add(name, "The "+name+" field must be of type string.")
		case s == "":
			v.Add(name, "The "+name+" must be at least 1 character (null clears it).")
		case len(s) > 255:
			v.Add(name, "The "+name+" may not be greater than 255 characters.")
		default:
			p[k] = s
		}
	}
	if len(fields) == 0 && len(v) == 0 {
		v.Add("transaction_details", "The body names no transaction detail to change ("+strings.Join(DetailsFields, ", ")+").")
	}
	return p, v.Err()
}

// TransactionDetailsTx is the part of a transaction that edits an entry's details.
type TransactionDetailsTx interface {
	// SetTransactionDetails replaces the details of an entry of the
	// business, and nothing else of it.
	SetTransactionDetails(ctx context.Context, businessID string, id int64, d TransactionDetails) error
}

// UpdateDetails applies p to the transaction_details of the entry id of
// the actor's business (ENotFound for another business's), audited as
// the actor's change, and returns the details as they became.
func (s *TransactionService) UpdateDetails(ctx context.Context, a Actor, id int64, p DetailsPatch) (TransactionDetails, error) {
	var out TransactionDetails
	err := audited(a, AuditTransactionDetails, "Transaction #"+strconv.FormatInt(id, 10), nil, nil, func(r *AuditRecord) error {
		st := AuditedStore(s.Store, r)
		return st.WithTx(ctx, func(tx Tx) error {
			e, err := tx.Transaction(ctx, a.BusinessID, id)
			if err != nil {
				return notFoundField(err, "Transaction not found.")
			}
			// An entry has no name: the log names its customer beside it.
			c, err := tx.CustomerAny(ctx, a.BusinessID, e.CustomerID)
			if err != nil && ErrorCode(err) != ENotFound {
				return err
			}
			if l := c.Label(); l != "" {
				noteTarget(st, "Transaction #"+strconv.FormatInt(id, 10)+" of "+l)
			}
			var d TransactionDetails
			if e.Details != nil {
				d = *e.Details
			}
			before := d.values()
			for k, val := range p {
				*d.field(k) = val
			}
			noteChanges(st, before, d.values())
			out = d
			return tx.SetTransactionDetails(ctx, a.BusinessID, id, d)
		})
	})
	return out, err
}
