package sqlstore

import (
	"context"
	"database/sql"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// BeginIdempotent records a new idempotency key, first forgetting the
// business's keys older than loyalty.IdempotencyKeyTTL (so a key is kept
// at least that long, and the table holds about that much).
func (t *tx) BeginIdempotent(ctx context.Context, businessID, key string, hash []byte) error {
	if _, err := t.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE business_id = $1 AND created_at < $2`,
		businessID, t.now.Add(-loyalty.IdempotencyKeyTTL)); err != nil {
		return dbError(err)
	}
	_, err := t.ExecContext(ctx, `INSERT INTO idempotency_keys (business_id, key, request_hash, status, response, created_at)
		VALUES ($1, $2, $3, 0, '', $4)`, businessID, key, hash, t.now)
	if _, unique := uniqueColumn(err); unique {
		return &loyalty.Error{Code: loyalty.EConflict, Message: "The Idempotency-Key was already used."}
	}
	return dbError(err)
}

// FinishIdempotent stores what the request under a key gave; the status
// column holds the record's format (loyalty.IdempotentRecord).
func (t *tx) FinishIdempotent(ctx context.Context, businessID, key string, format int, body []byte) error {
	_, err := t.ExecContext(ctx, `UPDATE idempotency_keys SET status = $1, response = $2 WHERE business_id = $3 AND key = $4`,
		format, string(body), businessID, key)
	return dbError(err)
}

// IdempotentReply returns the record stored under a key within
// loyalty.IdempotencyKeyTTL; an older one is forgotten, as if purged.
func (d *DB) IdempotentReply(ctx context.Context, businessID, key string) (loyalty.IdempotentRecord, error) {
	var r loyalty.IdempotentRecord
	var body string
	err := d.db.QueryRowContext(ctx, `SELECT request_hash, status, response FROM idempotency_keys
		WHERE business_id = $1 AND key = $2 AND created_at >= $3`,
		businessID, key, d.now().Add(-loyalty.IdempotencyKeyTTL)).Scan(&r.Hash, &r.Format, &body)
	if err == sql.ErrNoRows {
		return r, loyalty.Errorf(loyalty.ENotFound, "Idempotency key not found.")
	}
	r.Body = []byte(body)
	return r, dbError(err)
}

// Try runs fn inside a savepoint: when fn fails, what it wrote is rolled
// back and the transaction goes on as before it (also on PostgreSQL,
// where a failed statement would otherwise abort the whole transaction).
func (t *tx) Try(ctx context.Context, fn func() error) error {
	if _, err := t.ExecContext(ctx, `SAVEPOINT attempt`); err != nil {
		return dbError(err)
	}
	if err := fn(); err != nil {
		if _, rerr := t.ExecContext(ctx, `ROLLBACK TO SAVEPOINT attempt`); rerr != nil {
			return dbError(rerr)
		}
		if _, rerr := t.ExecContext(ctx, `RELEASE SAVEPOINT attempt`); rerr != nil {
			return dbError(rerr)
		}
		return err
	}
	_, err := t.ExecContext(ctx, `RELEASE SAVEPOINT attempt`)
	return dbError(err)
}
