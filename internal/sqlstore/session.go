package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
)

// InsertSession stores a session and drops the expired ones.
func (d *DB) InsertSession(ctx context.Context, hash []byte, s oauth.Session) error {
	return d.runTx(ctx, func(t *tx) error {
		if _, err := t.ExecContext(ctx, `DELETE FROM web_sessions WHERE expires_at < $1`, t.now.UTC()); err != nil {
			return err
		}
		_, err := t.ExecContext(ctx, `INSERT INTO web_sessions (id_hash, kind, subject_id, business_id, email, created_at,
			expires_at, last_seen_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, hash, s.Kind, s.SubjectID, nullString(s.BusinessID),
			s.Email, s.CreatedAt.UTC(), s.ExpiresAt.UTC(), s.LastSeen.UTC())
		return err
	})
}

// SessionByHash returns the session stored under hash.
func (d *DB) SessionByHash(ctx context.Context, hash []byte) (oauth.Session, error) {
	var s oauth.Session
	var seen sql.NullTime
	err := d.row(ctx, `SELECT kind, subject_id, COALESCE(business_id, ''), email, created_at, expires_at, last_seen_at
		FROM web_sessions WHERE id_hash = $1`, hash).Scan(&s.Kind, &s.SubjectID, &s.BusinessID, &s.Email, &s.CreatedAt, &s.ExpiresAt, &seen)
	if err == sql.ErrNoRows {
		return s, loyalty.Errorf(loyalty.ENotFound, "Session not found.")
	}
	s.LastSeen = s.CreatedAt
	if seen.Valid {
		s.LastSeen = seen.Time
	}
	return s, dbError(err)
}

// TouchSession records that a session was used at now. It changes no
// credential, so the token lookup cache is left as it is.
func (d *DB) TouchSession(ctx context.Context, hash []byte, now time.Time) error {
	_, err := d.wdb.ExecContext(ctx, `UPDATE web_sessions SET last_seen_at = $1 WHERE id_hash = $2`, now.UTC(), hash)
	return dbError(err)
}

// DeleteSession removes a session.
func (d *DB) DeleteSession(ctx context.Context, hash []byte) error {
	_, err := d.wdb.ExecContext(ctx, `DELETE FROM web_sessions WHERE id_hash = $1`, hash)
	return dbError(err)
}
