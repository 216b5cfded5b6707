package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// Running an import: starting it, the queue of due imports and their
// leases, each row settled with its mark, and the end.

// StartImport queues an uploaded import, in a transaction that writes the
// audit entry ctx carries.
func (d *DB) StartImport(ctx context.Context, businessID string, id int64) (loyalty.Import, error) {
	var im loyalty.Import
	err := d.runTx(ctx, func(t *tx) error {
		res, err := t.ExecContext(ctx, `UPDATE imports SET status = $1, started_at = $2 WHERE business_id = $3 AND id = $4 AND status = $5`,
			loyalty.ImportQueued, t.now, businessID, id, loyalty.ImportUploaded)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if im, err = scanImport(t.QueryRowContext(ctx, `SELECT `+importColumns+` FROM imports WHERE business_id = $1 AND id = $2`,
			businessID, id)); err != nil {
			return err
		}
		if n == 0 {
			return loyalty.Errorf(loyalty.EConflict, "Import has been already started.")
		}
		return nil
	})
	return im, err
}

// DueImports returns the ids of imports a worker may take at now.
func (d *DB) DueImports(ctx context.Context, now time.Time, limit int) ([]int64, error) {
	return column[int64](ctx, d.db, `SELECT id FROM imports WHERE status = $1 OR (status = $2 AND lease_until <= $3)
		ORDER BY id LIMIT $4`, loyalty.ImportQueued, loyalty.ImportRunning, now.UTC(), limit)
}

// importQueue is the imports as a lease queue: a queued import is due at
// once, a running one when its worker's lease ran out.
var importQueue = &leaseQueue{table: "imports", keyCols: []string{"id"}, claimCol: "claim", untilCol: "lease_until",
	stateCol: "status", waiting: loyalty.ImportQueued, held: loyalty.ImportRunning}

// ClaimImport leases a due import; the condition in the UPDATE decides
// between workers racing for it.
func (d *DB) ClaimImport(ctx context.Context, id int64, claim string, now, leaseUntil time.Time) (loyalty.Import, bool, error) {
	im, err := scanImport(importQueue.claim([]any{id}, claim, now, leaseUntil).returns(importColumns).queryRow(ctx, d.wdb))
	if loyalty.ErrorCode(err) == loyalty.ENotFound {
		return im, false, nil
	}
	return im, err == nil, err
}

// ImportRowMarked reports whether a row key was imported already.
func (d *DB) ImportRowMarked(ctx context.Context, businessID, key string) (bool, error) {
	var one int
	err := d.db.QueryRowContext(ctx, `SELECT 1 FROM import_rows WHERE business_id = $1 AND row_key = $2`, businessID, key).Scan(&one)
	if err == sql.ErrNoRows {
		return false, nil
	}
	return err == nil, dbError(err)
}

// SettleImportRow records a row failed (rowErr) or skipped, under the claim.
func (d *DB) SettleImportRow(ctx context.Context, m loyalty.ImportRowMark, rowErr *loyalty.ImportRowError) error {
	return d.runTx(ctx, func(t *tx) error {
		counter := "rows_skipped"
		if rowErr != nil {
			counter = "rows_failed"
			if err := t.addImportError(ctx, m.ImportID, loyalty.ImportStageRun, *rowErr); err != nil {
				return err
			}
		}
		return t.progress(ctx, m, counter)
	})
}

// progress moves an import's progress to a row settled, and its lease
// on, if the claim still holds it.
func (t *tx) progress(ctx context.Context, m loyalty.ImportRowMark, counter string) error {
	held, err := importQueue.renew([]any{m.ImportID}, m.Claim, m.LeaseUntil).
		setSQL(counter, counter+" + 1").set("next_row", m.Row).exec(ctx, t)
	if err == nil && !held {
		err = loyalty.ErrImportLeaseLost
	}
	return err
}

// writeImportRow writes the mark of an imported row and its progress in
// the row's transaction.
func (t *tx) writeImportRow(ctx context.Context, m *loyalty.ImportRowMark) error {
	res, err := t.ExecContext(ctx, `INSERT INTO import_rows (business_id, row_key, import_id, created_at)
		VALUES ($1, $2, $3, $4) ON CONFLICT (business_id, row_key) DO NOTHING`, m.BusinessID, m.Key, m.ImportID, t.now)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return loyalty.ErrRowImported
	}
	return t.progress(ctx, *m, "rows_done")
}

// FinishImport ends a run, if claim still holds the import.
func (d *DB) FinishImport(ctx context.Context, id int64, claim string) error {
	_, err := importQueue.finish([]any{id}, claim, loyalty.ImportFinished).set("finished_at", d.now()).exec(ctx, d.wdb)
	return dbError(err)
}
