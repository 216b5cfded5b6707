package httpapi

import (
	"net/http"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// The changes a business's apps make through the business API are in
// the business's audit log beside the console's, with the app as the
// actor: each write handler runs its change through audited, which hands
// it the services whose stores write the entry in the change's own
// transaction (loyalty.Audited, Services.AuditedBy). Reads are not
// recorded, nor are the entries of POST /transactions: the ledger is
// their record.

// audited runs write as the app's change action on target, audited: write
// makes its change through svc, the request's services writing the entry.
func (s *Server) audited(r *http.Request, rc *reqCtx, action, target string, write func(svc loyalty.Services) error) error {
	a, err := s.appActor(r, rc)
	if err != nil {
		return err
	}
	return loyalty.Audited(a, action, target, nil, nil, func(rec *loyalty.AuditRecord) error {
		return write(rc.svc.AuditedBy(rec))
	})
}

// auditedOf is audited for a write that returns what it made.
func auditedOf[T any](s *Server, r *http.Request, rc *reqCtx, action, target string, write func(svc loyalty.Services) (T, error)) (T, error) {
	var out T
	err := s.audited(r, rc, action, target, func(svc loyalty.Services) error {
		var err error
		out, err = write(svc)
		return err
	})
	return out, err
}

// appActor is the app that sent the request, as the audit log names it.
func (s *Server) appActor(r *http.Request, rc *reqCtx) (loyalty.Actor, error) {
	name, err := s.appName(r, rc)
	if err != nil {
		return loyalty.Actor{}, err
	}
	return loyalty.AppActor(rc.businessID, rc.token.AppID, name), nil
}

// saved is the action of a save: created when the path names no id.
func saved(id string) string {
	if id == "" {
		return loyalty.AuditProgramCreated
	}
	return loyalty.AuditProgramUpdated
}

// named is the target of a change of kind: "Offer: Coffee", or by the
// id the path gives when the body names none ("Offer #12").
func named(kind string, name loyalty.Opt[string], id string) string {
	if n, ok := name.Value(); ok && strings.TrimSpace(n) != "" {
		return kind + ": " + strings.TrimSpace(n)
	}
	if id == "" {
		return kind
	}
	return kind + " #" + id
}

// namedOrRead is the target of a change of kind to the object id: named
// by the body's name when it gives one (named), or else by the object's
// name read before the change, beside its id ("Product: Latte (#12)"),
// so that a change of a few fields does not read as an id alone; by the
// id when the object has no name, or cannot be read (the change then
// says why). read is called only when the body names nothing.
func namedOrRead(kind string, name loyalty.Opt[string], id string, read func() (string, error)) string {
	if n, ok := name.Value(); (ok && strings.TrimSpace(n) != "") || id == "" {
		return named(kind, name, id)
	}
	if n, ok := nameOf(read).Value(); ok {
		return kind + ": " + strings.TrimSpace(n) + " (#" + id + ")"
	}
	return named(kind, name, id)
}

// nameOf is the name read of an object before a change that removes it,
// for the log ("Offer: Coffee" rather than "Offer #12"); none when it
// cannot be read (the change then says why).
func nameOf(read func() (string, error)) loyalty.Opt[string] {
	n, err := read()
	if err != nil || strings.TrimSpace(n) == "" {
		return loyalty.Opt[string]{}
	}
	return loyalty.Some(n)
}

// customerTarget names the customer id for the log as the console does,
// by name and e-mail or phone, read before the change (a deleted customer
// has no name left to read).
func (s *Server) customerTarget(r *http.Request, rc *reqCtx, id string) string {
	c, err := rc.svc.Customers.Get(r.Context(), tenant(rc), id)
	if err != nil {
		return "Customer #" + id
	}
	return customerLabel(c.FirstName, c.LastName, c.Email, c.Phone, c.ID)
}

// customerLabel is "Ann Lee <ann@x.example>", or what of it is known
// (loyalty.Customer.Label), or the id.
func customerLabel(first, last, email, phone, id string) string {
	if l := (loyalty.User{FirstName: first, LastName: last, Email: email, Phone: phone}).Label(); l != "" {
		return l
	}
	return "Customer #" + id
}

// inputCustomer names a customer the body describes.
func inputCustomer(in loyalty.CustomerInput, id string) string {
	first, _ := in.FirstName.Value()
	last, _ := in.LastName.Value()
	email, _ := in.Email.Value()
	phone, _ := in.Phone.Value()
	return customerLabel(first, last, email, phone, id)
}
