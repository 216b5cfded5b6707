package sqlstore

import (
	"context"
	"database/sql"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A lease queue is a table whose rows workers take in turn: a worker
// claims a due row under a claim token of its own until its lease runs
// out, renews the lease while it works, and finishes the row under the
// same token. A worker that dies holds its row only until the lease runs
// out; the row is then due again, and a late write of the dead worker
// finds another token there and changes nothing.
//
// The imports, the outbox and the webhook deliveries are queues with a
// state (waiting, then held, then the queue's own outcomes); the event
// cursors and the scheduler's job leases are leases alone, one row per
// key, which their holder takes again to renew and another takes once it
// ran out. Each queue lists its due rows with its own query (each walks
// its own index); the writes below are shared.
//
// The engines: the same statements run on SQLite and PostgreSQL. Which
// of two workers racing for a row wins is decided by the condition of one
// UPDATE (or of one upsert, whose RETURNING both engines give only for
// the row it wrote): PostgreSQL evaluates the condition again on the row
// once the other writer commits, and SQLite has one writer at a time. So
// no SELECT ... FOR UPDATE (SQLite has none) nor SKIP LOCKED is needed.
// Times are bound in UTC, because SQLite compares them as text.
type leaseQueue struct {
	table    string
	keyCols  []string // the columns that name one row
	claimCol string   // the column of the claim token
	untilCol string   // the column of the lease's end
	// stateCol is the column of a row's state, and waiting and held the
	// states of a row waiting for its turn and of one a worker holds; no
	// state for a lease alone.
	stateCol, waiting, held string
	// dueCol is the column of when a waiting row's turn comes; none when
	// a waiting row is due at once.
	dueCol string
}

// claim leases the row key to token until until if it is due at now:
// waiting and its turn come, or held by a worker whose lease ran out.
// The caller adds its own columns (the attempt's count) and conditions.
// It is for queues with a state; a lease alone is taken with take.
func (q *leaseQueue) claim(key []any, token string, now, until time.Time) *leaseStmt {
	waiting, args := q.stateCol+" = ?", []any{q.waiting}
	if q.dueCol != "" {
		waiting, args = waiting+" AND "+q.dueCol+" <= ?", append(args, now)
	}
	return q.update(key).set(q.stateCol, q.held).set(q.claimCol, token).set(q.untilCol, until).
		where("(("+waiting+") OR ("+q.stateCol+" = ? AND "+q.untilCol+" <= ?))", append(args, q.held, now)...)
}

// holding is an update of the row key while token holds it; it changes
// nothing once another worker took the row over.
func (q *leaseQueue) holding(key []any, token string) *leaseStmt {
	s := q.update(key).where(q.claimCol+" = ?", token)
	if q.stateCol != "" {
		s.where(q.stateCol+" = ?", q.held)
	}
	return s
}

// renew moves token's lease on the row key on to until, with whatever
// progress the caller sets beside it.
func (q *leaseQueue) renew(key []any, token string, until time.Time) *leaseStmt {
	return q.holding(key, token).set(q.untilCol, until)
}

// finish ends token's lease on the row key, leaving the row in state (a
// queue's outcome; none for a lease alone, which is then free). The
// claim stays, saying which worker finished the row, unless the caller
// clears it.
func (q *leaseQueue) finish(key []any, token, state string) *leaseStmt {
	s := q.holding(key, token)
	if q.stateCol != "" {
		s.set(q.stateCol, state)
	}
	return s.setSQL(q.untilCol, "NULL")
}

// take takes the lease alone of the row key for token until until,
// writing the row when there is none: it is taken when free, run out at
// now, or token's already (a renewal). It scans returning into dest, and
// reports false when another token holds the lease.
func (q *leaseQueue) take(ctx context.Context, db querier, key []any, token string, now, until time.Time,
	returning string, dest ...any) (bool, error) {
	keys := strings.Join(q.keyCols, ", ")
	cols := keys + ", " + q.claimCol + ", " + q.untilCol
	args := append(slices.Clone(key), token, until.UTC(), now.UTC())
	marks := make([]string, len(key)+2)
	for i := range marks {
		marks[i] = "$" + strconv.Itoa(i+1)
	}
	t, at := q.table+".", "$"+strconv.Itoa(len(args))
	err := db.QueryRowContext(ctx, `INSERT INTO `+q.table+` (`+cols+`) VALUES (`+strings.Join(marks, ", ")+`)
		ON CONFLICT (`+keys+`) DO UPDATE SET `+q.claimCol+` = excluded.`+q.claimCol+`, `+q.untilCol+` = excluded.`+q.untilCol+`
		WHERE `+t+q.untilCol+` IS NULL OR `+t+q.untilCol+` <= `+at+` OR `+t+q.claimCol+` = excluded.`+q.claimCol+`
		RETURNING `+returning, args...).Scan(dest...)
	if err == sql.ErrNoRows {
		return false, nil
	}
	return err == nil, err
}

// update starts an UPDATE of the row key.
func (q *leaseQueue) update(key []any) *leaseStmt {
	s := &leaseStmt{table: q.table}
	for i, col := range q.keyCols {
		s.where(col+" = ?", key[i])
	}
	return s
}

// leaseStmt is an UPDATE of one leased row, written with ? for each
// argument; sql numbers them $1, $2, ... in the order they appear.
type leaseStmt struct {
	table     string
	sets      []clause
	conds     []clause
	returning string
}

// clause is a fragment of SQL with an argument for each ?; col is the
// column a SET clause assigns.
type clause struct {
	col, sql string
	args     []any
}

// set assigns col the value v, in place of an earlier value of col.
func (s *leaseStmt) set(col string, v any) *leaseStmt { return s.setSQL(col, "?", v) }

// setSQL assigns col the expression expr, in place of an earlier value of
// col.
func (s *leaseStmt) setSQL(col, expr string, args ...any) *leaseStmt {
	c := clause{col: col, sql: expr, args: args}
	if i := slices.IndexFunc(s.sets, func(c clause) bool { return c.col == col }); i >= 0 {
		s.sets[i] = c
	} else {
		s.sets = append(s.sets, c)
	}
	return s
}

// where adds a condition the row must meet.
func (s *leaseStmt) where(cond string, args ...any) *leaseStmt {
	s.conds = append(s.conds, clause{sql: cond, args: args})
	return s
}

// returns makes the UPDATE return cols of the row it changed.
func (s *leaseStmt) returns(cols string) *leaseStmt {
	s.returning = cols
	return s
}

// sql is the statement and its arguments.
func (s *leaseStmt) sql() (string, []any) {
	var b strings.Builder
	var args []any
	write := func(c clause) {
		parts := strings.Split(c.sql, "?")
		if len(parts) != len(c.args)+1 {
			panic("sqlstore: " + c.sql + " takes " + strconv.Itoa(len(parts)-1) + " arguments, not " + strconv.Itoa(len(c.args)))
		}
		for i, p := range parts {
			b.WriteString(p)
			if i < len(c.args) {
				v := c.args[i]
				if t, ok := v.(time.Time); ok {
					v = t.UTC()
				}
				args = append(args, v)
				b.WriteString("$" + strconv.Itoa(len(args)))
			}
		}
	}
	b.WriteString("UPDATE " + s.table + " SET ")
	for i, c := range s.sets {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.col + " = ")
		write(c)
	}
	for i, c := range s.conds {
		if i == 0 {
			b.WriteString(" WHERE ")
		} else {
			b.WriteString(" AND ")
		}
		write(c)
	}
	if s.returning != "" {
		b.WriteString(" RETURNING " + s.returning)
	}
	return b.String(), args
}

// exec runs the UPDATE and reports whether it changed the row.
func (s *leaseStmt) exec(ctx context.Context, db querier) (bool, error) {
	query, args := s.sql()
	res, err := db.ExecContext(ctx, query, args...)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// queryRow runs the UPDATE for the columns it returns: sql.ErrNoRows when
// it changed no row.
func (s *leaseStmt) queryRow(ctx context.Context, db querier) *sql.Row {
	query, args := s.sql()
	return db.QueryRowContext(ctx, query, args...)
}
