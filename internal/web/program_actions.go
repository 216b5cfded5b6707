package web

import (
	"net/http"
	"net/url"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// The program's actions on an object of its setup other than saving its
// form: disabling (confirmed first) and enabling it, and deleting it
// (confirmed first, from its form's Delete).

func (s *Server) setupDisableConfirm(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	k, err := kindOf(r)
	if err != nil {
		return err
	}
	s.renderConfirm(w, r, s.consoleView(r, a, ""), confirmPage{Heading: "Disable this " + k.One + "?",
		Message: "The " + k.One + " stays in your program, disabled.",
		Effects: []string{"It no longer applies and customers no longer see it.", "You can enable it again at any time."},
		Submit:  "Disable " + k.One, Back: "/business/program/" + k.Path})
	return nil
}

// deleteEffects are what deleting an object of a kind does, as its
// confirmation says.
var deleteEffects = map[string][]string{
	"products": {"It leaves your product list; sales that name its SKU count it as an unknown product.",
		"Earning rules and punch cards that name it must be changed before they are saved again.", "Its SKU is free for another product."},
	"categories":    {"Its products become uncategorised.", "Rules and punch cards that name it no longer match its products."},
	"punch-cards":   {"No purchase stamps it any more, and customers no longer see it.", "Coupons it issued stay valid."},
	"earning-rules": {"No sale after now earns by it.", "Points it gave stay with the customers."},
}

func (s *Server) setupDeleteConfirm(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	k, err := kindOf(r)
	if err != nil || k.remove == nil {
		return loyalty.Errorf(loyalty.ENotFound, "Not found.")
	}
	b, err := s.Program.Business(r.Context(), a)
	if err != nil {
		return err
	}
	saved, _, err := k.get(r.Context(), s, b, r.PathValue("id"), time.UTC)
	if err != nil {
		return err
	}
	name := setupName(single(saved), r.PathValue("id"))
	s.renderConfirm(w, r, s.consoleView(r, a, ""), confirmPage{Heading: "Delete " + name + "?",
		Message: "The " + k.One + " is deleted for good.", Effects: deleteEffects[k.Path],
		Submit: "Delete " + k.One, Back: "/business/program/" + k.Path + "/" + r.PathValue("id")})
	return nil
}

// single is a form's values as url.Values.
func single(form map[string]string) url.Values {
	named := url.Values{}
	for key, v := range form {
		named.Set(key, v)
	}
	return named
}

func (s *Server) setupDelete(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	k, err := kindOf(r)
	if err != nil || k.remove == nil {
		return loyalty.Errorf(loyalty.ENotFound, "Not found.")
	}
	if !confirmed(w, r) {
		return nil
	}
	b, err := s.Program.Business(r.Context(), a)
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	saved, _, err := k.get(r.Context(), s, b, id, time.UTC)
	if err != nil {
		return err
	}
	if err := k.remove(r.Context(), s, a, id, setupName(single(saved), id)); err != nil {
		return err
	}
	redirect(w, "/business/program/"+k.Path+"?notice=program_deleted")
	return nil
}

// setupToggle enables or disables an object through its service's update.
func (s *Server) setupToggle(enabled bool) consoleHandler {
	return func(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
		k, err := kindOf(r)
		if err != nil || !k.Toggle {
			return loyalty.Errorf(loyalty.ENotFound, "Not found.")
		}
		if !enabled && !confirmed(w, r) {
			return nil
		}
		b, err := s.Program.Business(r.Context(), a)
		if err != nil {
			return err
		}
		id := r.PathValue("id")
		saved, _, err := k.get(r.Context(), s, b, id, time.UTC)
		if err != nil {
			return err
		}
		body := []byte(`{"enabled":false}`)
		if enabled {
			body = []byte(`{"enabled":true}`)
		}
		if err := k.save(r.Context(), s, a, id, setupName(single(saved), id), body); err != nil {
			return err
		}
		redirect(w, "/business/program/"+k.Path+"?notice=program_saved")
		return nil
	}
}
