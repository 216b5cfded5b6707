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
// A service asks for an entry by running its change under audited: the
// entry rides on the context, RequestTxOptions hands it to the store as
// an explicit option of each transaction, and the first transaction that
// commits writes it.

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
	ActorEmail string
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
	// AuditEntries returns up to limit entries of a business with ids
	// below before (all when before is 0), newest first.
	AuditEntries(ctx context.Context, businessID string, before int64, limit int) ([]AuditEntry, error)
}

// AuditService reads the audit log.
type AuditService struct {
	Store AuditStore
}

// Page returns the page of the log older than the cursor before (0: the
// newest page) to an actor allowed to read it.
func (s *AuditService) Page(ctx context.Context, a Actor, before int64) (AuditPage, error) {
	if err := a.Require(PermManage); err != nil {
		return AuditPage{}, err
	}
	if before < 0 {
		before = 0
	}
	list, err := s.Store.AuditEntries(ctx, a.BusinessID, before, AuditPageSize+1)
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

type auditKey struct{}

// pendingAudit is an entry waiting for the transaction of its change.
type pendingAudit struct {
	entry   AuditEntry
	written bool
	dropped bool // the action was refused or replayed: nothing to record
}

// audited runs change with an entry of the actor's action attached to its
// context. A change that commits without writing the entry is a bug, and
// is reported as one.
func audited(ctx context.Context, a Actor, action, target string, before, after map[string]string, change func(context.Context) error) error {
	p := &pendingAudit{entry: AuditEntry{BusinessID: a.BusinessID, ActorKind: a.Kind, ActorID: a.ID, ActorEmail: a.Email,
		ActorRole: a.Role, Action: action, Target: target, Before: before, After: after}}
	if err := change(context.WithValue(ctx, auditKey{}, p)); err != nil {
		return err
	}
	if !p.written && !p.dropped {
		return fmt.Errorf("loyalty: the audit entry of %s was not written", action)
	}
	return nil
}

// noteChanges sets the settings before and after (only those that
// changed) on the audit entry ctx carries, if any: for a change whose new
// values are known only inside its transaction.
func noteChanges(ctx context.Context, before, after map[string]string) {
	if p, _ := ctx.Value(auditKey{}).(*pendingAudit); p != nil && !p.written {
		p.entry.Before, p.entry.After = changed(before, after)
	}
}

// dropAudit withdraws the audit entry ctx carries: the action it was to
// record did not happen (a refusal kept under an Idempotency-Key) or had
// happened before (a replay).
func dropAudit(ctx context.Context) {
	if p, _ := ctx.Value(auditKey{}).(*pendingAudit); p != nil && !p.written {
		p.dropped = true
	}
}
