package sqlstore

import (
	"context"
	"database/sql"

	"github.com/loyalty/loyalty/internal/loyalty"
)

const consentColumns = `id, business_id, customer_id, kind, allow_email, allow_sms, allow_push, source, changed_by, created_at`

func scanConsent(row scanner) (loyalty.Consent, error) {
	var c loyalty.Consent
	err := row.Scan(&c.ID, &c.BusinessID, &c.CustomerID, &c.Kind, &c.Email, &c.SMS, &c.Push, &c.Source, &c.By, &c.CreatedAt)
	return c, err
}

// Consents implements loyalty.ConsentReader.
func (d *DB) Consents(ctx context.Context, businessID, customerID, kind string) ([]loyalty.Consent, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT `+consentColumns+` FROM consents
		WHERE business_id = $1 AND customer_id = $2 AND kind = $3 ORDER BY id DESC`, businessID, customerID, kind)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	out := []loyalty.Consent{}
	for rows.Next() {
		c, err := scanConsent(rows)
		if err != nil {
			return nil, dbError(err)
		}
		out = append(out, c)
	}
	return out, dbError(rows.Err())
}

// LatestConsent implements loyalty.ConsentTx.
func (t *tx) LatestConsent(ctx context.Context, businessID, customerID, kind string) (loyalty.Consent, bool, error) {
	res, err := t.ExecContext(ctx, `UPDATE customers SET tx_count = tx_count WHERE business_id = $1 AND user_id = $2`,
		businessID, customerID)
	if err != nil {
		return loyalty.Consent{}, false, dbError(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return loyalty.Consent{}, false, loyalty.Errorf(loyalty.ENotFound, "Customer not found.")
	}
	return t.CurrentConsent(ctx, businessID, customerID, kind)
}

// CurrentConsent implements loyalty.ConsentTx.
func (t *tx) CurrentConsent(ctx context.Context, businessID, customerID, kind string) (loyalty.Consent, bool, error) {
	c, err := scanConsent(t.QueryRowContext(ctx, `SELECT `+consentColumns+` FROM consents
		WHERE business_id = $1 AND customer_id = $2 AND kind = $3 ORDER BY id DESC LIMIT 1`, businessID, customerID, kind))
	if err == sql.ErrNoRows {
		return c, false, nil
	}
	return c, err == nil, dbError(err)
}

// InsertConsent implements loyalty.ConsentTx.
func (t *tx) InsertConsent(ctx context.Context, c *loyalty.Consent) error {
	return dbError(t.QueryRowContext(ctx, `INSERT INTO consents (business_id, customer_id, kind, allow_email, allow_sms, allow_push,
		source, changed_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`, c.BusinessID, c.CustomerID, c.Kind,
		c.Email, c.SMS, c.Push, c.Source, c.By, c.CreatedAt.UTC()).Scan(&c.ID))
}

// SetMarketingConsent keeps the channels of the marketing consent in force
// on the customer's row.
func (t *tx) SetMarketingConsent(ctx context.Context, businessID, customerID string, ch loyalty.ContactChannels) error {
	_, err := t.ExecContext(ctx, `UPDATE customers SET consent_email = $1, consent_sms = $2, consent_push = $3
		WHERE business_id = $4 AND user_id = $5`, ch.Email, ch.SMS, ch.Push, businessID, customerID)
	return dbError(err)
}
