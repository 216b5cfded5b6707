package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// errBackfilled ends a backfill another instance finished first.
var errBackfilled = errors.New("dashboard already backfilled")

// backfillPage is how many ledger entries a backfill reads at a time.
const backfillPage = 5000

// BackfillDashboards folds into the rollups, for each business listed in
// dashboard_backfills (migration 00026), the ledger entries, customers
// and paid referrals that no event of the business stands for, and takes
// the business off the list in the same transaction. It returns how many
// businesses it took off.
//
// Exactly once: what has an event is folded by the dashboard's follower,
// what has none here. The history and the events are read in one
// snapshot, in which an entry, a customer or a payment shows with its
// event or not at all (they commit together); what commits later has an
// event. The sums go into the rollups as additions (and visit days only
// forward), which commute with the follower's, so both may run at once.
// Of two instances backfilling the same business, the one whose
// transaction takes it off the list first writes; the other, nothing.
func (d *DB) BackfillDashboards(ctx context.Context, fold loyalty.FoldFunc) (int, error) {
	ids, err := textColumn(ctx, d.db, `SELECT business_id FROM dashboard_backfills ORDER BY business_id LIMIT 10`)
	if err != nil {
		return 0, err
	}
	done := 0
	for _, id := range ids {
		if err := d.backfill(ctx, id, fold); errors.Is(err, errBackfilled) {
			continue
		} else if err != nil {
			return done, err
		}
		done++
	}
	return done, nil
}

// backfill folds one business's history without events and writes it.
func (d *DB) backfill(ctx context.Context, businessID string, fold loyalty.FoldFunc) error {
	var sum foldSum
	stx, err := d.snapshotTx(ctx)
	if err != nil {
		return dbError(err)
	}
	err = d.foldHistory(ctx, stx, businessID, fold, &sum)
	_ = stx.Rollback()
	if err != nil {
		return dbError(err)
	}
	err = d.runTx(ctx, func(t *tx) error {
		res, err := t.ExecContext(ctx, `DELETE FROM dashboard_backfills WHERE business_id = $1`, businessID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return errors.Join(err, errBackfilled)
		}
		return sum.write(ctx, t, businessID)
	})
	if errors.Is(err, errBackfilled) {
		return err
	}
	return dbError(err)
}

// subject is what an event stands for: its type and the id of its
// resource (an entry's, a customer's, a referral's).
type subject struct{ typ, id string }

// foldHistory adds to sum, reading in the snapshot q, the folds of the
// business's entries, customers and paid referrals that have no event.
func (d *DB) foldHistory(ctx context.Context, q *sql.Tx, businessID string, fold loyalty.FoldFunc, sum *foldSum) error {
	tz, err := timeZone(ctx, q, businessID)
	if err != nil {
		return err
	}
	seen, err := eventSubjects(ctx, q, businessID)
	if err != nil {
		return err
	}
	var history []loyalty.Event // as the events that would stand for it
	// The ledger, a page at a time in id order.
	r := entryReader{q: q, dialect: d.dialect, businessID: businessID}
	for after := int64(0); ; {
		page, err := ledgerPage(ctx, q, businessID, after)
		if err != nil || len(page) == 0 {
			if err != nil {
				return err
			}
			break
		}
		r.read = make(map[int64]loyalty.Transaction, len(page))
		for _, e := range page {
			r.read[e.ID] = e // a cancellation on the page reads what it reverses from here
		}
		for _, e := range page {
			if !seen[subject{loyalty.EventTransactionCreated, strconv.FormatInt(e.ID, 10)}] {
				history = append(history, loyalty.Event{ID: "history", BusinessID: businessID, Type: loyalty.EventTransactionCreated, EntryID: e.ID})
			}
		}
		if err := foldAll(ctx, fold, r, tz, businessID, history, sum); err != nil {
			return err
		}
		history = history[:0]
		after = page[len(page)-1].ID
	}
	// The customers who joined: a customer deleted since counts if the
	// deletion's event does (it takes the customer off again).
	rows, err := q.QueryContext(ctx, `SELECT user_id, created_at, deleted_at IS NOT NULL FROM customers WHERE business_id = $1`, businessID)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id string
		var joined time.Time
		var deleted bool
		if err := rows.Scan(&id, &joined, &deleted); err != nil {
			rows.Close()
			return err
		}
		if seen[subject{loyalty.EventCustomerCreated, id}] || (deleted && !seen[subject{loyalty.EventCustomerDeleted, id}]) {
			continue
		}
		data, err := json.Marshal(map[string]string{"id": id, "created_at": loyalty.FormatTime(joined)})
		if err != nil {
			rows.Close()
			return err
		}
		history = append(history, loyalty.Event{ID: "history", BusinessID: businessID, Type: loyalty.EventCustomerCreated, Data: data})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	// The referrals paid.
	rows, err = q.QueryContext(ctx, `SELECT id, paid_at FROM referrals WHERE business_id = $1 AND paid_at IS NOT NULL`, businessID)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id int64
		var paid time.Time
		if err := rows.Scan(&id, &paid); err != nil {
			rows.Close()
			return err
		}
		if !seen[subject{loyalty.EventReferralPaid, strconv.FormatInt(id, 10)}] {
			history = append(history, loyalty.Event{ID: "history", BusinessID: businessID, Type: loyalty.EventReferralPaid, CreatedAt: paid.UTC()})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	return foldAll(ctx, fold, r, tz, businessID, history, sum)
}

// foldAll adds the folds of events to sum.
func foldAll(ctx context.Context, fold loyalty.FoldFunc, r entryReader, tz, businessID string, events []loyalty.Event, sum *foldSum) error {
	for _, e := range events {
		folds, err := fold(ctx, r, tz, e)
		if err != nil {
			return err
		}
		sum.add(businessID, folds, nil)
	}
	return nil
}

// ledgerPage reads up to backfillPage entries of a business after id
// after, the columns a fold reads.
func ledgerPage(ctx context.Context, q querier, businessID string, after int64) ([]loyalty.Transaction, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+foldColumns+` FROM transactions t
		WHERE t.business_id = $1 AND t.id > $2 ORDER BY t.id LIMIT $3`, businessID, after, backfillPage)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []loyalty.Transaction
	for rows.Next() {
		e, err := scanFoldEntry(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// eventSubjects lists what the business's events of the folded types
// stand for, numbered or not.
func eventSubjects(ctx context.Context, q querier, businessID string) (map[subject]bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT type, data, entry_id FROM events WHERE business_id = $1 AND type IN ($2, $3, $4, $5)`,
		businessID, loyalty.EventTransactionCreated, loyalty.EventCustomerCreated, loyalty.EventCustomerDeleted, loyalty.EventReferralPaid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[subject]bool{}
	for rows.Next() {
		var typ, data string
		var entry sql.NullInt64
		if err := rows.Scan(&typ, &data, &entry); err != nil {
			return nil, err
		}
		if entry.Valid && entry.Int64 != 0 {
			out[subject{typ, strconv.FormatInt(entry.Int64, 10)}] = true
			continue
		}
		var ref struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal([]byte(data), &ref); err != nil {
			return nil, err
		}
		out[subject{typ, strings.Trim(string(ref.ID), `"`)}] = true
	}
	return out, rows.Err()
}
