package sqlstore

import (
	"context"
	"database/sql"
)

// BusinessTags returns the distinct tags of a business's customers,
// sorted, at most limit: one step of the (business_id, tag) index per tag
// (a loose index scan written as a recursive query, which both engines
// run), so a tag carried by a million customers costs one step, not a
// million rows.
func (d *DB) BusinessTags(ctx context.Context, businessID string, limit int) ([]string, error) {
	rows, err := d.db.QueryContext(ctx, `WITH RECURSIVE t(tag, n) AS (
		SELECT MIN(tag), 1 FROM customer_tags WHERE business_id = $1
		UNION ALL
		SELECT (SELECT MIN(g.tag) FROM customer_tags g WHERE g.business_id = $1 AND g.tag > t.tag), t.n + 1
		FROM t WHERE t.tag IS NOT NULL AND t.n < $2)
		SELECT tag FROM t WHERE tag IS NOT NULL ORDER BY tag`, businessID, limit)
	tags := []string{}
	err = scanAll(rows, err, func(rows *sql.Rows) error {
		var t string
		err := rows.Scan(&t)
		tags = append(tags, t)
		return err
	})
	return tags, err
}
