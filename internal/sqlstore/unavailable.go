package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// retryAfter is the Retry-After, in seconds, of an unavailable database:
// about what a PostgreSQL restart or a failover takes.
const retryAfter = 3

// readOnlyNode is SQLSTATE read_only_sql_transaction: the server took
// the connection's write for a read-only transaction's. The store's
// writes never run in one it asked for, so it means the node is no
// longer the primary.
const readOnlyNode = "25006"

// keepAfter is the connections' pgconn.Config.OnPgError: a connection
// that met a node refusing writes is closed, so the pool
// connects again, to whichever host of the URL accepts writes
// (target_session_attrs=read-write); otherwise what pgx does, closing on
// a FATAL error.
func keepAfter(_ *pgconn.PgConn, pe *pgconn.PgError) bool {
	return pe.Severity != "FATAL" && pe.Code != readOnlyNode
}

// unavailable reports whether err says the database cannot be reached now,
// rather than that a statement is wrong: the connection refused, lost or
// ended by the server (SQLSTATE class 08; 57P01 admin shutdown, 57P02
// crash shutdown, 57P03 cannot connect now; 53300 too many connections;
// 25006 a write on a node that accepts none now: a primary demoted, or a
// pooler's connection left on a node that came back as a standby), a
// deadline passed waiting for a connection, the store closed (shutdown),
// or SQLite's write lock held past the busy timeout or its file unusable.
func unavailable(err error) bool {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true // whatever the server said while connecting
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "57P01", "57P02", "57P03", "53300", readOnlyNode:
			return true
		}
		return strings.HasPrefix(pe.Code, "08")
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY:
			// BUSY_SNAPSHOT is a conflict with a concurrent change, not
			// a lock held too long.
			return se.Code() != sqlite3.SQLITE_BUSY_SNAPSHOT
		case sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_FULL:
			return true
		}
		return false
	}
	var ne net.Error
	switch {
	case errors.As(err, &ne), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF),
		errors.Is(err, driver.ErrBadConn), errors.Is(err, pgconn.ErrConnClosed), errors.Is(err, sql.ErrConnDone),
		errors.Is(err, context.DeadlineExceeded), errors.Is(err, errClosed):
		return true
	}
	// database/sql and pgxpool do not export these.
	msg := err.Error()
	return strings.HasSuffix(msg, "sql: database is closed") || strings.HasSuffix(msg, "closed pool")
}
