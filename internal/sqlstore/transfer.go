package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

const transferColumns = `id, business_id, sender_id, receiver_id, to_email, to_phone, points, message, state, sent_entry,
	settled_entry, created_at, expires_at, settled_at`

func scanTransfer(row scanner) (loyalty.Transfer, error) {
	var t loyalty.Transfer
	var receiver, email, phone sql.NullString
	var settled sql.NullInt64
	var settledAt sql.NullTime
	err := row.Scan(&t.ID, &t.BusinessID, &t.SenderID, &receiver, &email, &phone, &t.Points, &t.Message, &t.State, &t.SentEntry,
		&settled, &t.CreatedAt, &t.ExpiresAt, &settledAt)
	if err == sql.ErrNoRows {
		return t, loyalty.Errorf(loyalty.ENotFound, "Transfer not found.")
	}
	t.ReceiverID, t.ToEmail, t.ToPhone = receiver.String, email.String, phone.String
	t.SettledEntry, t.SettledAt = settled.Int64, settledAt.Time
	return t, err
}

func scanTransfers(rows *sql.Rows, err error) ([]loyalty.Transfer, error) {
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	out := []loyalty.Transfer{}
	for rows.Next() {
		t, err := scanTransfer(rows)
		if err != nil {
			return nil, dbError(err)
		}
		out = append(out, t)
	}
	return out, dbError(rows.Err())
}

// MemberTransfers implements loyalty.TransferReader.
func (d *DB) MemberTransfers(ctx context.Context, businessID, memberID string) ([]loyalty.Transfer, error) {
	return scanTransfers(d.db.QueryContext(ctx, `SELECT `+transferColumns+` FROM transfers
		WHERE business_id = $1 AND (sender_id = $2 OR receiver_id = $2) ORDER BY created_at DESC, id DESC`, businessID, memberID))
}

// DueTransfers implements loyalty.TransferReader.
func (d *DB) DueTransfers(ctx context.Context, businessID string, at time.Time, limit int) ([]loyalty.Transfer, error) {
	q := `SELECT ` + transferColumns + ` FROM transfers WHERE state = 'pending' AND expires_at <= $1`
	args := []any{at.UTC(), limit}
	if businessID != "" {
		q += ` AND business_id = $3`
		args = append(args, businessID)
	}
	return scanTransfers(d.db.QueryContext(ctx, q+` ORDER BY expires_at LIMIT $2`, args...))
}

// InsertTransfer implements loyalty.TransferTx.
func (t *tx) InsertTransfer(ctx context.Context, x *loyalty.Transfer) error {
	_, err := t.ExecContext(ctx, `INSERT INTO transfers (id, business_id, sender_id, receiver_id, to_email, to_phone, points, message,
		state, sent_entry, settled_entry, created_at, expires_at, settled_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`, x.ID, x.BusinessID, x.SenderID, nullString(x.ReceiverID),
		nullString(x.ToEmail), nullString(x.ToPhone), x.Points, x.Message, x.State, x.SentEntry, nullInt(x.SettledEntry),
		x.CreatedAt.UTC(), x.ExpiresAt.UTC(), nullTime(x.SettledAt))
	return dbError(err)
}

// Transfer implements loyalty.TransferTx.
func (t *tx) Transfer(ctx context.Context, businessID, id string) (loyalty.Transfer, error) {
	x, err := scanTransfer(t.QueryRowContext(ctx, `SELECT `+transferColumns+` FROM transfers WHERE business_id = $1 AND id = $2`,
		businessID, id))
	return x, dbError(err)
}

// PendingTransfersTo implements loyalty.TransferTx.
func (t *tx) PendingTransfersTo(ctx context.Context, businessID, email, phone string) ([]loyalty.Transfer, error) {
	return scanTransfers(t.QueryContext(ctx, `SELECT `+transferColumns+` FROM transfers WHERE business_id = $1 AND state = 'pending'
		AND (to_email = $2 OR to_phone = $3) ORDER BY created_at, id`, businessID, nullString(email), nullString(phone)))
}

// SettleTransfer implements loyalty.TransferTx: a compare-and-set on the
// pending state.
func (t *tx) SettleTransfer(ctx context.Context, x loyalty.Transfer) (bool, error) {
	return t.changed(t.ExecContext(ctx, `UPDATE transfers SET state = $1, receiver_id = $2, settled_entry = $3, settled_at = $4
		WHERE id = $5 AND state = 'pending'`, x.State, nullString(x.ReceiverID), x.SettledEntry, x.SettledAt.UTC(), x.ID))
}

// SentSince implements loyalty.TransferTx.
func (t *tx) SentSince(ctx context.Context, businessID, senderID string, from time.Time) (int64, error) {
	var n int64
	err := t.QueryRowContext(ctx, `SELECT COALESCE(SUM(points), 0) FROM transfers WHERE business_id = $1 AND sender_id = $2
		AND created_at >= $3 AND state IN ('pending', 'completed')`, businessID, senderID, from.UTC()).Scan(&n)
	return n, dbError(err)
}
