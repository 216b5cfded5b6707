package sqlstore

import (
	"context"
	"database/sql"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// LockCustomer implements loyalty.ErasureTx.
func (t *tx) LockCustomer(ctx context.Context, businessID, customerID string) (loyalty.Customer, error) {
	if err := t.lockCustomer(ctx, businessID, customerID); err != nil {
		return loyalty.Customer{}, dbError(err)
	}
	return t.CustomerAny(ctx, businessID, customerID)
}

// PersonBusinesses implements loyalty.ErasureTx.
func (t *tx) PersonBusinesses(ctx context.Context, userID string) ([]string, error) {
	rows, err := t.QueryContext(ctx, `SELECT business_id FROM customers WHERE user_id = $1 ORDER BY business_id`, userID)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, dbError(err)
		}
		out = append(out, id)
	}
	return out, dbError(rows.Err())
}

// ErasePerson implements loyalty.ErasureTx.
func (t *tx) ErasePerson(ctx context.Context, u loyalty.User) error {
	if err := t.UpdateUser(ctx, &u); err != nil {
		return err
	}
	if _, err := t.ExecContext(ctx, `UPDATE users SET pin_hash = NULL, failed_logins = 0, locked_until = NULL,
		email_verified_at = NULL, phone_verified_at = NULL WHERE id = $1`, u.ID); err != nil {
		return dbError(err)
	}
	_, err := t.ExecContext(ctx, `DELETE FROM user_secrets WHERE user_id = $1`, u.ID)
	return dbError(err)
}

// EraseMessagesTo implements loyalty.ErasureTx.
func (t *tx) EraseMessagesTo(ctx context.Context, addresses []string) error {
	if len(addresses) == 0 {
		return nil
	}
	list, args := placeholders(nil, addresses)
	if _, err := t.ExecContext(ctx, `DELETE FROM outbox WHERE status IN ('pending', 'failed') AND recipient IN (`+list+`)`,
		args...); err != nil {
		return dbError(err)
	}
	_, err := t.ExecContext(ctx, `UPDATE outbox SET recipient = 'erased', subject = '', body = '(erased)'
		WHERE recipient IN (`+list+`)`, args...)
	return dbError(err)
}

// MessagesTo implements loyalty.ExportReader.
func (d *DB) MessagesTo(ctx context.Context, addresses []string) ([]loyalty.SentMessage, error) {
	out := []loyalty.SentMessage{}
	if len(addresses) == 0 {
		return out, nil
	}
	list, args := placeholders(nil, addresses)
	rows, err := d.db.QueryContext(ctx, `SELECT id, channel, recipient, subject, status, created_at, sent_at FROM outbox
		WHERE recipient IN (`+list+`) ORDER BY id`, args...)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var m loyalty.SentMessage
		var sent sql.NullTime
		if err := rows.Scan(&m.ID, &m.Channel, &m.To, &m.Subject, &m.Status, &m.CreatedAt, &sent); err != nil {
			return nil, dbError(err)
		}
		m.SentAt = sent.Time
		out = append(out, m)
	}
	return out, dbError(rows.Err())
}
