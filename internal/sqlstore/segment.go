package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
)

const segmentColumns = `s.id, s.business_id, s.name, s.filter, s.created_at, s.updated_at`

func scanSegment(row scanner) (loyalty.Segment, error) {
	var s loyalty.Segment
	var filter string
	if err := row.Scan(&s.ID, &s.BusinessID, &s.Name, &filter, &s.CreatedAt, &s.UpdatedAt); err != nil {
		return s, dbError(err)
	}
	if err := json.Unmarshal([]byte(filter), &s.Filter); err != nil {
		return s, fmt.Errorf("sqlstore: segment %d: filter: %w", s.ID, err)
	}
	return s, nil
}

// Segments pages a business's segments, oldest first.
func (d *DB) Segments(ctx context.Context, businessID string, q loyalty.ListQuery) ([]loyalty.Segment, int, error) {
	from, args, err := listWhere([]string{"s.business_id = $1"}, []any{businessID}, q, nil)
	if err != nil {
		return nil, 0, err
	}
	var out []loyalty.Segment
	total, err := d.listPage(ctx, segmentColumns, `FROM segments s`+from, `s.id`, args, q, func(rows *sql.Rows) error {
		s, err := scanSegment(rows)
		out = append(out, s)
		return err
	})
	return out, total, err
}

// Segment returns one segment of a business.
func (d *DB) Segment(ctx context.Context, businessID string, id int64) (loyalty.Segment, error) {
	return scanSegment(d.db.QueryRowContext(ctx, `SELECT `+segmentColumns+` FROM segments s WHERE s.business_id = $1 AND s.id = $2`,
		businessID, id))
}

// InsertSegment stores a new segment.
func (t *tx) InsertSegment(ctx context.Context, s *loyalty.Segment) error {
	filter, err := json.Marshal(s.Filter)
	if err != nil {
		return err
	}
	return dbError(t.QueryRowContext(ctx, `INSERT INTO segments (business_id, name, filter, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5) RETURNING id`, s.BusinessID, s.Name, string(filter), s.CreatedAt.UTC(), s.UpdatedAt.UTC()).Scan(&s.ID))
}

// UpdateSegment writes a segment's name and filter.
func (t *tx) UpdateSegment(ctx context.Context, s *loyalty.Segment) error {
	filter, err := json.Marshal(s.Filter)
	if err != nil {
		return err
	}
	_, err = t.ExecContext(ctx, `UPDATE segments SET name = $1, filter = $2, updated_at = $3 WHERE business_id = $4 AND id = $5`,
		s.Name, string(filter), s.UpdatedAt.UTC(), s.BusinessID, s.ID)
	return dbError(err)
}

// DeleteSegment removes a segment; ENotFound when the business has none
// of that id.
func (t *tx) DeleteSegment(ctx context.Context, businessID string, id int64) error {
	res, err := t.ExecContext(ctx, `DELETE FROM segments WHERE business_id = $1 AND id = $2`, businessID, id)
	if err != nil {
		return dbError(err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return dbError(sql.ErrNoRows)
	}
	return nil
}

// CountCustomers counts the active customers of a business c selects.
func (d *DB) CountCustomers(ctx context.Context, businessID string, c loyalty.CustomerCriteria) (int, error) {
	where, args := criteriaWhere(d.dialect, businessID, c)
	var n int
	err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM customers c WHERE `+where, args...).Scan(&n)
	return n, dbError(err)
}

// CountCustomersEach counts the active customers of a business each of
// cs selects, in one pass over them: a sum of each one's conditions.
func (d *DB) CountCustomersEach(ctx context.Context, businessID string, cs []loyalty.CustomerCriteria) ([]int, error) {
	if len(cs) == 0 {
		return nil, nil
	}
	b := &criteriaArgs{args: []any{businessID}}
	sums := make([]string, len(cs))
	for i, cr := range cs {
		sums[i] = `COALESCE(SUM(CASE WHEN ` + strings.Join(append([]string{"1 = 1"}, b.conds(cr)...), " AND ") + ` THEN 1 ELSE 0 END), 0)`
	}
	args := b.args
	out := make([]int, len(cs))
	dest := make([]any, len(cs))
	for i := range out {
		dest[i] = &out[i]
	}
	err := d.db.QueryRowContext(ctx, `SELECT `+strings.Join(sums, ", ")+` FROM customers c WHERE c.business_id = $1 AND `+
		activeCustomers(d.dialect), args...).Scan(dest...)
	return out, dbError(err)
}

// CustomersWhere pages the active customers of a business c selects, and
// q's filters, oldest first as GET /customers, with their total.
func (d *DB) CustomersWhere(ctx context.Context, businessID string, c loyalty.CustomerCriteria, q loyalty.ListQuery) ([]loyalty.Customer, int, error) {
	where, args := criteriaWhere(d.dialect, businessID, c)
	from, args, err := listWhere([]string{where}, args, q, customerFilterColumns)
	if err != nil {
		return nil, 0, err
	}
	var out []loyalty.Customer
	from = `FROM customers c` + from
	var total int
	if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) `+from, args...).Scan(&total); err != nil {
		return nil, 0, dbError(err)
	}
	err = d.pageRowsLate(ctx, total, "c", customerColumns(d.dialect), from, "c.created_at, c.user_id", args, q, func(rows *sql.Rows) error {
		cu, err := scanCustomer(rows)
		out = append(out, cu)
		return err
	})
	return out, total, err
}

// CustomerTags returns a customer's tags, sorted.
func (d *DB) CustomerTags(ctx context.Context, businessID, customerID string) ([]string, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT tag FROM customer_tags WHERE business_id = $1 AND customer_id = $2 ORDER BY tag`,
		businessID, customerID)
	tags := []string{}
	err = scanAll(rows, err, func(rows *sql.Rows) error {
		var t string
		err := rows.Scan(&t)
		tags = append(tags, t)
		return err
	})
	return tags, err
}

// SetCustomerTags replaces a customer's tags.
func (t *tx) SetCustomerTags(ctx context.Context, businessID, customerID string, tags []string) error {
	if _, err := t.ExecContext(ctx, `DELETE FROM customer_tags WHERE business_id = $1 AND customer_id = $2`, businessID, customerID); err != nil {
		return dbError(err)
	}
	for _, tag := range tags {
		if _, err := t.ExecContext(ctx, `INSERT INTO customer_tags (business_id, customer_id, tag) VALUES ($1, $2, $3)`,
			businessID, customerID, tag); err != nil {
			return dbError(err)
		}
	}
	return nil
}

// Candidates lists up to limit active customers of a business c selects
// with an id after after, in id order, with their last visit and what
// the criteria ask candidates to carry.
func (d *DB) Candidates(ctx context.Context, businessID string, c loyalty.CustomerCriteria, after string, limit int) ([]loyalty.Candidate, error) {
	query, args := candidatesSQL(d.dialect, businessID, c, after, limit)
	rows, err := d.db.QueryContext(ctx, query, args...)
	var out []loyalty.Candidate
	err = scanAll(rows, err, func(rows *sql.Rows) error {
		var c loyalty.Candidate
		var last sql.NullTime
		var expiry, changed aggTime
		err := rows.Scan(&c.CustomerID, &last, &expiry, &c.Completed, &changed)
		c.LastVisitAt, c.NextExpiry, c.TierChangedAt = last.Time, expiry.Time, changed.Time
		out = append(out, c)
		return err
	})
	return out, err
}

// hasBirthDays reports whether c, or a criteria it is joined to, selects
// members by their birthday.
func hasBirthDays(c loyalty.CustomerCriteria) bool {
	for k := &c; k != nil; k = k.And {
		if len(k.BirthDays) > 0 {
			return true
		}
	}
	return false
}

// notRunSQL leaves out the customers with a run r names: under r.Key, or
// whose Occurred is the customer's moment r.Occurrence names, one of the
// candidate's columns (cols, as candidatesSQL selects them), and under
// r.Key for a customer without it. Each customer's test is a probe of
// the runs' index by automation and customer: written NOT EXISTS,
// PostgreSQL joins it, and with statistics not yet gathered it counted an
// automation's runs few and walked them all for each customer (1.4 s a
// pass of 10,000 lapsed members, BenchmarkLapseRepass); a scalar subquery
// it never joins.
func notRunSQL(r *loyalty.RunCriterion, cols []string, ph func(any) string) string {
	runs := func(cond string) string {
		return `(SELECT 1 FROM automation_runs ar WHERE ar.automation_id = ` + ph(r.AutomationID) +
			` AND ar.customer_id = c.user_id AND ` + cond + ` LIMIT 1) IS NULL`
	}
	if r.Occurrence == "" {
		return runs(`ar.run_key = ` + ph(r.Key))
	}
	col := map[string]string{loyalty.OccurrenceLastVisit: cols[1], loyalty.OccurrenceNextExpiry: cols[2],
		loyalty.OccurrenceTierChanged: cols[4]}[r.Occurrence]
	if col == "" {
		col = `NULL`
	}
	cond := runs(`ar.occurred_at = ` + col)
	if r.Key != "" {
		cond += ` AND (` + col + ` IS NOT NULL OR ` + runs(`ar.run_key = `+ph(r.Key)) + `)`
	}
	return cond
}

// candidatesSQL is Candidates' query and its arguments. A birthday
// trigger's pass reads its day's members by customers_birthday
// (migration 00075), not every member of the business in id order.
func candidatesSQL(dialect, businessID string, c loyalty.CustomerCriteria, after string, limit int) (string, []any) {
	where, args := criteriaWhere(dialect, businessID, c)
	ph := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	// The candidate's columns: its id, last visit, next expiry, punch
	// card completions and when its tier level was announced.
	cols := []string{`c.user_id`, `c.last_visit_at`, `NULL`, `0`, `NULL`}
	if x := c.Expiring; x != nil {
		cols[2] = `(SELECT MIN(m.expires_at) FROM (` + lotsExpiringIn(x, ph) + `) m)`
	}
	if p := c.Punch; p != nil {
		cols[3] = `COALESCE((SELECT pp.completed FROM punch_progress pp WHERE pp.card_id = ` + ph(p.CardID) +
			` AND pp.customer_id = c.user_id), 0)`
	}
	if t := c.Tier; t != nil {
		cols[4] = `(SELECT ct.changed_at FROM customer_tiers ct WHERE ct.business_id = c.business_id AND ct.tier_id = ` +
			ph(t.TierID) + ` AND ct.customer_id = c.user_id)`
	}
	from := `customers c`
	if dialect == SQLite && hasBirthDays(c) {
		// Without statistics (a new database) SQLite walks the key in id
		// order rather than sort the members of two days (a leap-day
		// birthday kept on February 28th); a day's members are at most a
		// few hundredths of a business's.
		from += ` INDEXED BY customers_birthday`
	}
	if r := c.NotRun; r != nil {
		where += ` AND ` + notRunSQL(r, cols, ph)
	}
	n := len(args)
	return `SELECT ` + strings.Join(cols, ", ") + ` FROM ` + from + ` WHERE ` + where + ` AND c.user_id > $` +
		strconv.Itoa(n+1) + ` ORDER BY c.user_id LIMIT $` + strconv.Itoa(n+2), append(args, after, limit)
}
