package loyalty

import (
	"context"
	"fmt"
	"time"
)

// The audit log records every console action: who, what, when, and for
// settings the values before and after. An entry is written in the same
// database transaction as the change it records, and never changed or
// removed afterwards.
//
// A service asks for an entry by running its change under audited, which
// gives the change the action's record; the change makes its writes
// through stores that write the record (AuditedStore, Services.AuditedBy),
// and the first of their transactions that commits writes the entry.

// Audit actions.
const (
	AuditKeyRotated      = "key.rotated"
	AuditAppRevoked      = "app.revoked"
	AuditStaffInvited    = "staff.invited"
	AuditStaffReinvited  = "staff.reinvited"
	AuditStaffJoined     = "staff.joined"
	AuditStaffRole       = "staff.role_changed"
	AuditStaffRemoved    = "staff.removed"
	AuditPasswordChanged = "password.changed"
	AuditPasswordReset   = "password.reset"
	AuditProfileUpdated  = "profile.updated"
)

// AuditEntry is one console action in a business's audit log.
type AuditEntry struct {
	ID         int64
	BusinessID string
	ActorKind  string
	ActorID    string
	ActorEmail string // a person's e-mail, or an app's name (ActorApp)
	ActorRole  string
	Action     string
	Target     string            // what the action was on: an e-mail, an app's name
	Before     map[string]string // settings as they were, for changes of settings
	After      map[string]string // settings as they became
	CreatedAt  time.Time
}

// AuditPageSize is how many entries a page of the log shows.
const AuditPageSize = 50

// AuditPage is one page of a business's log, newest first.
type AuditPage struct {
	Entries []AuditEntry
	Older   int64 // the cursor of the next, older page; 0 when this is the last
}

// AuditStore reads the audit log; entries are written by the
// transactions they record (TxOptions.Audit).
type AuditStore interface {
	// AuditEntries returns up to limit entries of a business that f
	// keeps, newest first.
	AuditEntries(ctx context.Context, businessID string, f AuditFilter, limit int) ([]AuditEntry, error)
	// AuditActors lists who has entries in a business's log: each
	// person or app once, by the name of their latest entry.
	AuditActors(ctx context.Context, businessID string) ([]AuditActor, error)
}

// AuditService reads the audit log.
type AuditService struct {
	Store AuditStore
}

// Page returns the page of the log that f keeps, older than its cursor
// (f.Before, 0 for the newest page), to an actor allowed to read it.
func (s *AuditService) Page(ctx context.Context, a Actor, f AuditFilter) (AuditPage, error) {
	if err := a.Require(PermManage); err != nil {
		return AuditPage{}, err
	}
	if err := f.check(); err != nil {
		return AuditPage{}, err
	}
	list, err := s.Store.AuditEntries(ctx, a.BusinessID, f, AuditPageSize+1)
	if err != nil {
		return AuditPage{}, err
	}
	p := AuditPage{Entries: list}
	if len(list) > AuditPageSize {
		p.Entries = list[:AuditPageSize]
		p.Older = p.Entries[AuditPageSize-1].ID
	}
	return p, nil
}

// Actors lists who has entries in the log, for choosing whose to read.
func (s *AuditService) Actors(ctx context.Context, a Actor) ([]AuditActor, error) {
	if err := a.Require(PermManage); err != nil {
		return nil, err
	}
	return s.Store.AuditActors(ctx, a.BusinessID)
}

// AuditRecord is the audit entry of one console action, waiting for the
// transaction of its change: stores write it through a view made by
// AuditedStore.
type AuditRecord struct {
	entry   AuditEntry
	written bool
	dropped bool // the action was refused or replayed: nothing to record
}

// TxOptions are the options of a transaction of the record's change: its
// entry while it waits to be written, and the note that the transaction
// committed. A record written or withdrawn asks for nothing.
func (r *AuditRecord) TxOptions() TxOptions {
	if r == nil || r.written || r.dropped {
		return TxOptions{}
	}
	return TxOptions{Audit: &r.entry, committed: []func(){func() { r.written = true }}}
}

// auditable is a store that gives views of itself whose transactions
// write an audit record (sqlstore.DB).
type auditable interface {
	AuditedBy(r *AuditRecord) any
	AuditRecord() *AuditRecord
}

// AuditedStore returns the view of st whose transactions write r's entry,
// the first that commits: st itself when it gives no such view, whose
// change then commits without the entry and is reported as a bug.
func AuditedStore[S any](st S, r *AuditRecord) S {
	if a, ok := any(st).(auditable); ok {
		if v, ok := a.AuditedBy(r).(S); ok {
			return v
		}
	}
	return st
}

// recordOf is the audit record st's transactions write, nil for none.
func recordOf(st any) *AuditRecord {
	if a, ok := st.(auditable); ok {
		return a.AuditRecord()
	}
	return nil
}

// audited runs change with the record of the actor's action, which change
// hands to the stores making it (AuditedStore). A change that commits
// without writing the entry is a bug, and is reported as one.
func audited(a Actor, action, target string, before, after map[string]string, change func(*AuditRecord) error) error {
	r := &AuditRecord{entry: AuditEntry{BusinessID: a.BusinessID, ActorKind: a.Kind, ActorID: a.ID, ActorEmail: a.Email,
		ActorRole: a.Role, Action: action, Target: target, Before: before, After: after}}
	if err := change(r); err != nil {
		return err
	}
	if !r.written && !r.dropped {
		return fmt.Errorf("loyalty: the audit entry of %s was not written", action)
	}
	return nil
}

// noteChanges sets the settings before and after (only those that
// changed) on the audit entry st's transactions write, if any: for a
// change whose new values are known only inside its transaction.
func noteChanges(st any, before, after map[string]string) {
	if r := recordOf(st); r != nil && !r.written {
		r.entry.Before, r.entry.After = changed(before, after)
	}
}

// noteTarget names what the audit entry st's transactions write, if any,
// is about: for a change whose object is known only inside its
// transaction (the customer of a ledger entry).
func noteTarget(st any, target string) {
	if r := recordOf(st); r != nil && !r.written {
		r.entry.Target = target
	}
}

// auditing reports whether st's transactions write an audit entry still
// to be written, for a change that reads more only to name it.
func auditing(st any) bool {
	r := recordOf(st)
	return r != nil && !r.written && !r.dropped
}

// dropAudit withdraws the audit entry st's transactions write, if any:
// the action it was to record did not happen (a refusal kept under an
// Idempotency-Key) or had happened before (a replay).
func dropAudit(st any) {
	if r := recordOf(st); r != nil && !r.written {
		r.dropped = true
	}
}
