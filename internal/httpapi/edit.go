package httpapi

import (
	"context"
	"net/http"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// The calls of a kind of object a business edits by id (segments,
// campaigns, automations) share their shape, as customerOfferPage shares
// the customer offer pages: a page of the list, one object by the path's
// id, an audited save answering 201 for a new object, an audited delete
// answering 204. Each kind gives its service's methods and how it writes
// an object out.

// listPage answers with the page list returns for the list query of
// spec, each object as toJSON renders it, linked under path.
func listPage[T, J any](w http.ResponseWriter, r *http.Request, rc *reqCtx, spec loyalty.ListSpec, path string,
	list func(context.Context, loyalty.Business, loyalty.ListQuery) ([]T, int, error), toJSON func(T) J) error {
	q := r.URL.Query()
	lq, err := loyalty.ParseListQuery(q, spec)
	if err != nil {
		return err
	}
	items, total, err := list(r.Context(), tenant(rc), lq)
	if err != nil {
		return err
	}
	data := make([]J, len(items))
	for i, it := range items {
		data[i] = toJSON(it)
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "cursor": cursorOf(path, q, lq, len(items), total),
		"meta": map[string]int{"total": total}})
	return nil
}

// getOne answers with the object get reads by the path's id, as toJSON
// renders it.
func getOne[T, J any](w http.ResponseWriter, r *http.Request, rc *reqCtx,
	get func(context.Context, loyalty.Business, string) (T, error), toJSON func(T) (J, error)) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	v, err := get(r.Context(), tenant(rc), r.PathValue("id"))
	if err != nil {
		return err
	}
	out, err := toJSON(v)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
	return nil
}

// saveOne creates an object of kind (POST, the path names no id) or
// changes the one the path names (PUT) through save, audited as named by
// name or else by readName, and answers with it as toJSON renders it:
// 201 Created for a new object.
func saveOne[T, J any](s *Server, w http.ResponseWriter, r *http.Request, rc *reqCtx, kind string, name loyalty.Opt[string],
	readName func() (string, error), save func(svc loyalty.Services, id string) (T, error), toJSON func(T) (J, error)) error {
	id := r.PathValue("id")
	v, err := auditedOf(s, r, rc, saved(id), namedOrRead(kind, name, id, readName), func(svc loyalty.Services) (T, error) {
		return save(svc, id)
	})
	if err != nil {
		return err
	}
	out, err := toJSON(v)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if id == "" {
		status = http.StatusCreated
	}
	writeJSON(w, status, map[string]any{"data": out})
	return nil
}

// deleteOne deletes the object of kind the path names through del,
// audited with the name readName reads before, and answers 204.
func (s *Server) deleteOne(w http.ResponseWriter, r *http.Request, rc *reqCtx, kind string, readName func() (string, error),
	del func(svc loyalty.Services, id string) error) error {
	id := r.PathValue("id")
	if err := s.audited(r, rc, loyalty.AuditProgramDeleted, named(kind, nameOf(readName), id), func(svc loyalty.Services) error {
		return del(svc, id)
	}); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// nameRead reads through get the name of the object the path names, for
// the audit log.
func nameRead[T any](r *http.Request, rc *reqCtx, get func(context.Context, loyalty.Business, string) (T, error),
	name func(T) string) func() (string, error) {
	return func() (string, error) {
		v, err := get(r.Context(), tenant(rc), r.PathValue("id"))
		return name(v), err
	}
}
