package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/loyalty/loyalty/internal/oauth"
)

// Connections lists the apps that hold live tokens for a business (issued
// for its owner, or under its Application Key) or that its owner let in.
func (d *DB) Connections(ctx context.Context, businessID string, now time.Time) ([]oauth.Connection, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT `+appColumns+`, MIN(x.since), SUM(x.tokens), MAX(x.consent) FROM apps a
		JOIN (SELECT app_id, created_at AS since, 0 AS tokens, 1 AS consent FROM app_connections
			WHERE business_id = $1 AND revoked_at IS NULL
		UNION ALL
		SELECT app_id, created_at, 1, 0 FROM oauth_tokens
			WHERE (business_id = $2 OR tenant_id = $3) AND revoked_at IS NULL AND refresh_expires_at > $4) x ON x.app_id = a.id
		GROUP BY a.id, a.client_id, a.name, a.description, a.redirect_uri, a.grant_type, a.api, a.status, a.developer_id, a.created_at
		ORDER BY MIN(x.since), a.id`, businessID, businessID, businessID, now.UTC())
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []oauth.Connection
	for rows.Next() {
		var c oauth.Connection
		var since looseTime
		var consent int
		if err := rows.Scan(append(appDest(&c.App), &since, &c.Tokens, &consent)...); err != nil {
			return nil, dbError(err)
		}
		c.Since, c.Consented = since.Time, consent == 1
		out = append(out, c)
	}
	return out, dbError(rows.Err())
}

// RevokeConnection withdraws an app's consent, revokes its tokens for the
// business and voids its unused codes, in one transaction.
func (d *DB) RevokeConnection(ctx context.Context, businessID, appID string, now time.Time) error {
	return d.runTx(ctx, func(t *tx) error {
		t.accessChanged()
		if _, err := t.ExecContext(ctx, `UPDATE app_connections SET revoked_at = $1, updated_at = $2
			WHERE app_id = $3 AND business_id = $4 AND revoked_at IS NULL`, now.UTC(), now.UTC(), appID, businessID); err != nil {
			return err
		}
		if _, err := t.ExecContext(ctx, `UPDATE oauth_tokens SET revoked_at = $1
			WHERE app_id = $2 AND (business_id = $3 OR tenant_id = $4) AND revoked_at IS NULL`, now.UTC(), appID, businessID, businessID); err != nil {
			return err
		}
		_, err := t.ExecContext(ctx, `UPDATE authorization_codes SET used_at = $1
			WHERE app_id = $2 AND business_id = $3 AND used_at IS NULL`, now.UTC(), appID, businessID)
		return err
	})
}

// looseTime scans a time that SQLite returns as text where a column's
// declared type is lost (an aggregate over a UNION); NULL scans as zero.
type looseTime struct{ time.Time }

// Scan implements sql.Scanner.
func (l *looseTime) Scan(v any) error {
	switch x := v.(type) {
	case nil:
		l.Time = time.Time{}
		return nil
	case time.Time:
		l.Time = x
		return nil
	case []byte:
		v = string(x)
	}
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("sqlstore: cannot scan %T as a time", v)
	}
	for _, layout := range []string{"2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05.999999999Z07:00", time.RFC3339Nano} {
		if t, err := time.Parse(layout, s); err == nil {
			l.Time = t
			return nil
		}
	}
	return fmt.Errorf("sqlstore: unreadable time %q", s)
}
