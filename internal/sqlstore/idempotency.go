package sqlstore

import (
	"context"
	"database/sql"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// BeginIdempotent records a new idempotency key.
func (t *tx) BeginIdempotent(ctx context.Context, businessID, key string, hash []byte) error {
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

// IdempotentReply returns the record stored under a key.
func (d *DB) IdempotentReply(ctx context.Context, businessID, key string) (loyalty.IdempotentRecord, error) {
	var r loyalty.IdempotentRecord
	var body string
	err := d.db.QueryRowContext(ctx, `SELECT request_hash, status, response FROM idempotency_keys WHERE business_id = $1 AND key = $2`,
		businessID, key).Scan(&r.Hash, &r.Format, &body)
	if err == sql.ErrNoRows {
		return r, loyalty.Errorf(loyalty.ENotFound, "Idempotency key not found.")
	}
	r.Body = []byte(body)
	return r, dbError(err)
}
