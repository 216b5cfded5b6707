package web

import (
	"bytes"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// The console's segments: the list with each one's count, the form with
// a live count while it is edited, deleting, and the customers of a
// segment on the customers page. The owner's and managers' (marketing);
// the use cases are console.CustomerDesk's, the rules the domain's.

func (s *Server) segmentRoutes(mux *http.ServeMux) {
	mux.Handle("GET /business/segments", s.console(loyalty.PermManage, s.segmentList))
	mux.Handle("GET /business/segments/new", s.console(loyalty.PermManage, s.segmentEdit))
	mux.Handle("POST /business/segments/new", s.console(loyalty.PermManage, s.segmentSave))
	mux.Handle("POST /business/segments/count", s.console(loyalty.PermManage, s.segmentCount))
	mux.Handle("GET /business/segments/{id}", s.console(loyalty.PermManage, s.segmentEdit))
	mux.Handle("POST /business/segments/{id}", s.console(loyalty.PermManage, s.segmentSave))
	mux.Handle("GET /business/segments/{id}/delete", s.console(loyalty.PermManage, s.segmentDeleteConfirm))
	mux.Handle("POST /business/segments/{id}/delete", s.console(loyalty.PermManage, s.segmentDelete))
}

// segmentNotices are the segment pages' notices after a change.
var segmentNotices = map[string]string{
	"segment_saved":   "The segment was saved. Its count is always as of now.",
	"segment_deleted": "The segment was deleted. Its customers are not changed.",
}

// segmentsPage is the body of the segments template.
type segmentsPage struct {
	Rows  []segmentRow
	Total int // every segment, when more than the rows shown
}

// segmentRow is a segment as the list shows it.
type segmentRow struct {
	console.SegmentRow
	Words     []string // its conditions, one a line
	Customers string   // the link to its customers
	Matches   string   // its count, with thousands separators
}

func (s *Server) segmentList(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	rows, total, err := s.Desk.Segments(r.Context(), a)
	if err != nil {
		return err
	}
	c, err := s.Desk.SegmentChoices(r.Context(), a)
	if err != nil {
		return err
	}
	b, loc, err := s.segmentBusiness(r, a)
	if err != nil {
		return err
	}
	p := segmentsPage{Total: total}
	for _, row := range rows {
		p.Rows = append(p.Rows, segmentRow{SegmentRow: row, Words: segmentWords(row.Filter, c, b, loc),
			Customers: "/business/customers?segment=" + strconv.FormatInt(row.ID, 10), Matches: thousands(int64(row.Count))})
	}
	v := s.consoleView(r, a, "Segments")
	if n := segmentNotices[r.URL.Query().Get("notice")]; n != "" {
		v.Notice = n
	}
	v.Data = p
	s.render(w, r, http.StatusOK, "segments", v)
	return nil
}

// segmentBusiness is the actor's business and its time zone.
func (s *Server) segmentBusiness(r *http.Request, a loyalty.Actor) (loyalty.Business, *time.Location, error) {
	b, err := s.consoleBusiness(r, a)
	if err != nil {
		return b, nil, err
	}
	loc, err := s.location(r, a)
	return b, loc, err
}

// segmentFormPage is the body of the segment_form template.
type segmentFormPage struct {
	Heading, Action, Submit string
	Delete                  string // the link to delete it; "" for a new one
	Form                    segmentForm
	Choices                 segmentChoices
	Count                   *segmentCount
	Business                loyalty.Business // whose currency amounts are in
}

// segmentCount is the live count's box: how many customers the filter
// as it stands selects, or why it cannot count them.
type segmentCount struct {
	N        int
	Counted  bool
	Problems []string
}

// Text is the count with thousands separators.
func (c segmentCount) Text() string { return thousands(int64(c.N)) }

// segmentEdit shows the form of a new segment, or of the one the path
// names with its count now.
func (s *Server) segmentEdit(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	_, loc, err := s.segmentBusiness(r, a)
	if err != nil {
		return err
	}
	form := segmentForm{Values: map[string]string{}, Lists: map[string][]string{}}
	var count *segmentCount
	if id := r.PathValue("id"); id != "" {
		row, err := s.Desk.Segment(r.Context(), a, id)
		if err != nil {
			return err
		}
		form, count = segmentFormOf(row.Segment, loc), &segmentCount{N: row.Count, Counted: true}
	} else {
		n, err := s.Desk.CountSegment(r.Context(), a, loyalty.SegmentFilter{})
		if err != nil {
			return err
		}
		count = &segmentCount{N: n, Counted: true}
	}
	return s.renderSegment(w, r, a, http.StatusOK, form, nil, "", count)
}

func (s *Server) renderSegment(w http.ResponseWriter, r *http.Request, a loyalty.Actor, status int, form segmentForm,
	errs map[string][]string, msg string, count *segmentCount) error {
	c, err := s.Desk.SegmentChoices(r.Context(), a)
	if err != nil {
		return err
	}
	b, err := s.consoleBusiness(r, a)
	if err != nil {
		return err
	}
	p := segmentFormPage{Heading: "New segment", Action: "/business/segments/new", Submit: "Save segment",
		Form: form, Choices: segmentChoicesOf(c, form), Count: count, Business: b}
	if id := r.PathValue("id"); id != "" {
		p.Heading, p.Action = "Edit segment", "/business/segments/"+id
		p.Delete = p.Action + "/delete"
	}
	v := s.consoleView(r, a, p.Heading)
	v.Fields, v.Error, v.Data, v.Script = errs, msg, p, "segments.js"
	s.render(w, r, status, "segment_form", v)
	return nil
}

// segmentSave saves the posted segment, or with the Count button counts
// what it selects and shows the form again.
func (s *Server) segmentSave(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	_, loc, err := s.segmentBusiness(r, a)
	if err != nil {
		return err
	}
	form := postedSegment(r.PostForm)
	f, bad := form.filter(loc)
	if r.PostForm.Get("count") != "" {
		count, bad, err := s.countSegment(r, a, f, bad)
		if err != nil {
			return err
		}
		return s.renderSegment(w, r, a, http.StatusOK, form, bad, "", count)
	}
	if len(bad) == 0 {
		_, err = s.Desk.SaveSegment(r.Context(), a, r.PathValue("id"), form.Name, f)
		if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
			bad = segmentRefusal(e.Fields)
		} else if err != nil {
			return err
		}
	}
	if len(bad) > 0 {
		count, bad, err := s.countSegment(r, a, f, bad)
		if err != nil {
			return err
		}
		return s.renderSegment(w, r, a, http.StatusUnprocessableEntity, form, bad, "The segment was not saved: please correct the conditions marked below.", count)
	}
	redirect(w, "/business/segments?notice=segment_saved")
	return nil
}

// countSegment counts what a filter selects, or says why it cannot: the
// boxes the form could not read (bad) and the domain's refusals of the
// rest of the filter.
func (s *Server) countSegment(r *http.Request, a loyalty.Actor, f loyalty.SegmentFilter, bad map[string][]string) (*segmentCount, map[string][]string, error) {
	out := &segmentCount{}
	n, err := s.Desk.CountSegment(r.Context(), a, f)
	if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
		for name, msgs := range segmentRefusal(e.Fields) {
			if _, shown := bad[name]; !shown {
				bad[name] = msgs
			}
		}
	} else if err != nil {
		return nil, nil, err
	}
	out.N, out.Counted = n, len(bad) == 0
	for name, msgs := range bad {
		for _, m := range msgs {
			if l := segmentBoxWords[name]; l != "" {
				m = l + ": " + m
			}
			out.Problems = append(out.Problems, m)
		}
	}
	slices.Sort(out.Problems)
	return out, bad, nil
}

// segmentCount answers the form's script: the count box for the filter
// as it stands, as HTML to put in place. Nothing is saved.
func (s *Server) segmentCount(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	_, loc, err := s.segmentBusiness(r, a)
	if err != nil {
		return err
	}
	f, bad := postedSegment(r.PostForm).filter(loc)
	count, bad, err := s.countSegment(r, a, f, bad)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := s.pages["segment_form"].ExecuteTemplate(&buf, "segment-count", count); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if len(bad) > 0 {
		w.WriteHeader(httpapi.StatusOf(loyalty.EInvalid))
	}
	w.Write(buf.Bytes())
	return nil
}

func (s *Server) segmentDeleteConfirm(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	row, err := s.Desk.Segment(r.Context(), a, r.PathValue("id"))
	if err != nil {
		return err
	}
	s.renderConfirm(w, r, s.consoleView(r, a, ""), confirmPage{
		Heading: "Delete the segment " + row.Name + "?",
		Message: "The segment's conditions are deleted; its " + thousands(int64(row.Count)) + " customers are not changed.",
		Effects: []string{"It can no longer be chosen to reach its customers."},
		Submit:  "Delete segment", Back: "/business/segments/" + strconv.FormatInt(row.ID, 10)})
	return nil
}

func (s *Server) segmentDelete(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	return deleteConfirmed(w, r, func() error { return s.Desk.DeleteSegment(r.Context(), a, r.PathValue("id")) },
		"/business/segments?notice=segment_deleted")
}

// segmentCustomers is the customers page showing a segment's customers,
// a page at a time.
func (s *Server) segmentCustomers(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	q := r.URL.Query()
	page, _ := strconv.Atoi(q.Get("page"))
	m, err := s.Desk.SegmentCustomers(r.Context(), a, q.Get("segment"), page)
	if err != nil {
		return err
	}
	c, err := s.Desk.SegmentChoices(r.Context(), a)
	if err != nil {
		return err
	}
	b, loc, err := s.segmentBusiness(r, a)
	if err != nil {
		return err
	}
	id := strconv.FormatInt(m.Segment.ID, 10)
	p := searchPage{SearchResult: console.SearchResult{Customers: m.Customers, Levels: m.Levels, Total: m.Total, Page: m.Page, Pages: m.Pages},
		Searched: true, Business: b, Segment: &segmentHead{Name: m.Segment.Name, Edit: "/business/segments/" + id,
			Words: segmentWords(m.Segment.Filter, c, b, loc)}}
	link := func(page int) string {
		return "/business/customers?" + url.Values{"segment": {id}, "page": {strconv.Itoa(page)}}.Encode()
	}
	if m.Page > 1 {
		p.Prev = link(m.Page - 1)
	}
	if m.Page < m.Pages {
		p.Next = link(m.Page + 1)
	}
	v := s.consoleView(r, a, m.Segment.Name)
	v.Form = map[string]string{}
	v.Data = p
	s.render(w, r, http.StatusOK, "customers", v)
	return nil
}

// segmentHead is the customers page's heading when it shows a segment's
// customers.
type segmentHead struct {
	Name  string
	Edit  string   // the link to the segment's form
	Words []string // its conditions, one a line
}
