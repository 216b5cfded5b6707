package sqlstore

import (
	"database/sql"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/loyalty/loyalty/internal/loyalty"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// How driver errors of either engine are read: unique and foreign-key
// violations, and the errors the domain words (dbError).

// uniqueColumn reports the column (or constraint) a unique violation hit.
func uniqueColumn(err error) (string, bool) {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" {
		return pe.ConstraintName + " " + pe.Detail, true
	}
	var se *sqlite.Error
	if errors.As(err, &se) && (se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY) {
		return se.Error(), true
	}
	return "", false
}

// foreignKeyViolation reports whether err is a foreign-key violation.
func foreignKeyViolation(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "23503"
	}
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY
}

// dbError turns database errors into domain errors; domain errors pass.
func dbError(err error) error {
	if err == nil {
		return nil
	}
	var de *loyalty.Error
	if errors.As(err, &de) {
		return err
	}
	if errors.Is(err, sql.ErrNoRows) {
		return loyalty.Errorf(loyalty.ENotFound, "Not found.")
	}
	if col, ok := uniqueColumn(err); ok {
		switch {
		case strings.Contains(col, "email"):
			return loyalty.StoredInvalid("email", "The email has already been taken.")
		case strings.Contains(col, "phone"):
			return loyalty.StoredInvalid("phone", "The phone has already been taken.")
		}
		return &loyalty.Error{Code: loyalty.EConflict, Message: "A concurrent change conflicted; retry."}
	}
	if unavailable(err) {
		return &loyalty.Error{Code: loyalty.EUnavailable, RetryAfter: retryAfter, Cause: err,
			Message: "The service is temporarily unavailable; retry in a few seconds."}
	}
	if badText(err) {
		// The API refuses such text first; this covers any other way in.
		return loyalty.Errorf(loyalty.EBadRequest, "The request holds text that cannot be stored (a NUL character, or bytes that are not UTF-8).")
	}
	if isBusy(err) {
		return &loyalty.Error{Code: loyalty.EConflict, Message: "The database is busy; retry."}
	}
	return err
}

// badText reports whether PostgreSQL refused text: a NUL character or
// bytes that are not UTF-8 (SQLSTATE 22021), or a character the database
// encoding lacks (22P05).
func badText(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "22021" || pe.Code == "22P05")
}

// isBusy reports a conflict with a concurrent change: SQLite's
// BUSY_SNAPSHOT or LOCKED, a PostgreSQL serialization failure or deadlock.
func isBusy(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() == sqlite3.SQLITE_BUSY_SNAPSHOT || se.Code()&0xff == sqlite3.SQLITE_LOCKED
	}
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}
