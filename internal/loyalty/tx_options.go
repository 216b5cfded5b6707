package loyalty

import "time"

// TxOptions are what a transaction carries beyond its change, handed to
// the store explicitly (Store.WithTxOptions): the clock that dates it,
// and the rows it must write before committing so that they commit with
// the change or not at all.
type TxOptions struct {
	// Offset moves the transaction's Now ahead of the store's clock: a
	// sandbox business's clock (Business.ClockOffset); 0 for a live one,
	// or the clock of the store's view (ClockedStore).
	Offset time.Duration
	// Audit, when set, is the audit entry of the change: written in the
	// transaction, so a change and its entry commit together.
	Audit *AuditEntry
	// ImportRow, when set, is the mark of the imported row the change
	// makes: written in the transaction, refused with ErrRowImported when
	// the row's key is there already and ErrImportLeaseLost when the
	// mark's claim no longer holds the import.
	ImportRow *ImportRowMark
	// committed are told once the transaction carrying the options has
	// committed (Committed).
	committed []func()
}

// Committed tells the options' owners that the transaction that wrote
// them has committed. Stores call it after every commit of a transaction
// run with options.
func (o TxOptions) Committed() {
	for _, f := range o.committed {
		f()
	}
}

// importTx is the options of the transaction that makes an imported row's
// change: it writes the row's mark, and m records that it did.
func importTx(m *ImportRowMark) TxOptions {
	return TxOptions{ImportRow: m, committed: []func(){func() { m.written = true }}}
}

// With is o with the gaps filled from more: its offset when o has none,
// its audit entry and import mark when o has none. more's owners are told
// of the commit only when o took a row of theirs to write, or they ask
// for none.
func (o TxOptions) With(more TxOptions) TxOptions {
	if o.Offset == 0 {
		o.Offset = more.Offset
	}
	took := more.Audit == nil && more.ImportRow == nil
	if o.Audit == nil && more.Audit != nil {
		o.Audit, took = more.Audit, true
	}
	if o.ImportRow == nil && more.ImportRow != nil {
		o.ImportRow, took = more.ImportRow, true
	}
	if took {
		o.committed = append(append([]func(){}, o.committed...), more.committed...)
	}
	return o
}
