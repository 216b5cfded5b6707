// Package loyalty holds the domain of the Loyalty service: its types, the
// business rules that govern them, the store interfaces the rules need, and
// the error codes every layer speaks.
package loyalty

import (
	"errors"
	"fmt"
	"sort"
)

// Error codes. The HTTP layer maps each to one status, in one place.
const (
	EInvalid      = "invalid"      // input failed validation; Fields names what
	EBadRequest   = "bad_request"  // malformed request: bad id, unknown include, bad filter
	ENotFound     = "not_found"    // the object does not exist for this tenant
	EForbidden    = "forbidden"    // authenticated, but not allowed
	EUnauthorized = "unauthorized" // missing or bad credentials
	ETooMany      = "too_many"     // throttled; RetryAfter says how long
	EConflict     = "conflict"     // a concurrent change won; retry
	EUnavailable  = "unavailable"  // a dependency (the database) cannot be reached now; RetryAfter says when to retry
	ENotMet       = "not_met"      // a valid request whose condition is not met: nothing was done
	EInternal     = "internal"     // a bug; detail goes to logs only
)

// Error is a domain error carrying a code, a message safe to show a client,
// and, for EInvalid, the messages per field.
type Error struct {
	Code       string
	Message    string
	Fields     map[string][]string
	RetryAfter int     // seconds, for ETooMany and EUnavailable
	Refusal    Refusal // why the store refused a balance move, if it did
	Stored     bool    // EInvalid: the input is well formed but what is stored refuses it (see StoredInvalid)
	Cause      error   // the underlying error, for logs only (EUnavailable)
}

// Unwrap returns the underlying error, if any.
func (e *Error) Unwrap() error { return e.Cause }

// Error implements the error interface.
func (e *Error) Error() string {
	if len(e.Fields) > 0 {
		keys := make([]string, 0, len(e.Fields))
		for k := range e.Fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return fmt.Sprintf("%s: %s %v", e.Code, e.Message, keys)
	}
	return e.Code + ": " + e.Message
}

// Errorf returns an Error with the given code and formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of err, EInternal for errors that are not ours.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if err == nil {
		return ""
	}
	return EInternal
}

// ErrorMessage returns the client-safe message of err.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "Internal error."
}

// Validation collects per-field messages; its Err is nil when nothing failed.
type Validation map[string][]string

// Add records a message for field.
func (v Validation) Add(field, msg string) {
	v[field] = append(v[field], msg)
}

// Has reports whether field already has a message.
func (v Validation) Has(field string) bool { return len(v[field]) > 0 }

// Err returns an EInvalid error naming every failed field, or nil.
func (v Validation) Err() error {
	if len(v) == 0 {
		return nil
	}
	return &Error{Code: EInvalid, Message: "The given data was invalid.", Fields: v}
}

// NotMet returns the ENotMet answer to a request whose condition is not
// met, saying which.
func NotMet(msg string) error { return Errorf(ENotMet, "%s", msg) }

// Invalid returns an EInvalid error for a single field.
func Invalid(field, msg string) error { return invalid(field, msg) }

// StoredInvalid returns an EInvalid error for a single field whose value is
// well formed but refused by what is stored: an e-mail already taken, a
// coalition that does not exist. The API answers it as any other 422; the
// admin command line tells it from a usage error, since retyping the
// command the same way could succeed once the database changes.
func StoredInvalid(field, msg string) error {
	e := invalid(field, msg)
	e.Stored = true
	return e
}

// RenameFields renames the fields of a validation error (EInvalid) by
// names, for a caller whose request names them otherwise; any other
// error is returned as it is.
func RenameFields(err error, names map[string]string) error {
	e, ok := err.(*Error)
	if !ok || e.Code != EInvalid {
		return err
	}
	out := *e
	out.Fields = map[string][]string{}
	for f, msgs := range e.Fields {
		if n, ok := names[f]; ok {
			f = n
		}
		out.Fields[f] = append(out.Fields[f], msgs...)
	}
	return &out
}
