package loyalty

import (
	"strings"
	"time"
)

// The audit log is read a page at a time, narrowed to one person or app,
// one action and a range of dates; the store applies the filter in its
// query, so a page holds AuditPageSize entries that match.

// ActorApp is the kind of an audit entry's actor when a business's app
// made the change through the business API: its id is the app's and its
// e-mail column holds the app's name, as the business sees it among its
// connected apps.
const ActorApp = "app"

// AppActor is the actor of a change the app appID, named name, made
// through the business API with a token of the business.
func AppActor(businessID, appID, name string) Actor {
	return Actor{Kind: ActorApp, ID: appID, BusinessID: businessID, Email: name, Role: ActorApp}
}

// AuditFilter narrows the log: each field set keeps only the entries that
// match it.
type AuditFilter struct {
	Before  int64     // entries older than this cursor (an entry's id); 0 for the newest
	Actor   string    // one person or app: AuditActor.Key
	Actions []string  // one of these actions
	From    time.Time // at or after
	To      time.Time // before
}

// check refuses a filter no entry could match by mistake: a range that
// ends before it starts.
func (f *AuditFilter) check() error {
	if f.Before < 0 {
		f.Before = 0
	}
	if !f.From.IsZero() && !f.To.IsZero() && !f.To.After(f.From) {
		return Invalid("to", "The end date must be on or after the start date.")
	}
	return nil
}

// ActorKind and ActorID split the filter's actor key.
func (f AuditFilter) ActorKind() (kind, id string, ok bool) {
	if f.Actor == "" {
		return "", "", false
	}
	return strings.Cut(f.Actor, ":")
}

// AuditActor is one person or app with entries in a business's log.
type AuditActor struct {
	Kind string
	ID   string
	Name string // their e-mail, or the app's name
}

// Key names the actor in an AuditFilter.
func (a AuditActor) Key() string { return a.Kind + ":" + a.ID }
