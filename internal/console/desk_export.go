package console

import (
	"context"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// Exports hand the customers or the ledger of a business to the owner or
// a manager one row at a time, as the database reads them, so an export
// of any size holds one row in memory. Each export is in the audit log:
// it takes the customers' personal data out of the service.

// ExportCustomers calls fn for each customer matching the search's text,
// state and joining dates (not its tier level, which is computed per
// customer), oldest first.
func (d *CustomerDesk) ExportCustomers(ctx context.Context, a loyalty.Actor, in CustomerSearch, loc *time.Location, fn func(loyalty.Customer) error) error {
	if err := a.Require(loyalty.PermManage); err != nil {
		return err
	}
	b, err := d.business(ctx, a)
	if err != nil {
		return err
	}
	f, v := searchFilter(in, b.Country, loc)
	if in.Tier != "" {
		v.Add("tier", "An export takes every level: leave the tier filter out.")
	}
	if err := v.Err(); err != nil {
		return err
	}
	if err := d.logExport(ctx, a, loyalty.AuditCustomersExported, "Customers"); err != nil {
		return err
	}
	return d.Store.EachCustomer(ctx, b.ID, f, fn)
}

// ExportLedger calls fn for each ledger entry of the business made
// between the days from and to (YYYY-MM-DD in loc, both included; empty
// for no bound), in the order they were written.
func (d *CustomerDesk) ExportLedger(ctx context.Context, a loyalty.Actor, from, to string, loc *time.Location, fn func(loyalty.Transaction) error) error {
	if err := a.Require(loyalty.PermManage); err != nil {
		return err
	}
	f, v := searchFilter(CustomerSearch{JoinedFrom: from, JoinedTo: to}, "", loc)
	for old, field := range map[string]string{"joined_from": "from", "joined_to": "to"} {
		if msgs, ok := v[old]; ok {
			delete(v, old)
			v[field] = msgs
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	if err := d.logExport(ctx, a, loyalty.AuditLedgerExported, "Ledger"); err != nil {
		return err
	}
	return d.Store.EachTransaction(ctx, a.BusinessID, f.JoinedFrom, f.JoinedBefore, fn)
}

// logExport writes the export's audit entry in a transaction of its own,
// before the first row is read.
func (d *CustomerDesk) logExport(ctx context.Context, a loyalty.Actor, action, target string) error {
	return loyalty.Audited(a, action, target, nil, nil, func(r *loyalty.AuditRecord) error {
		return loyalty.AuditedStore(d.Store, r).WithTx(ctx, func(loyalty.Tx) error { return nil })
	})
}
