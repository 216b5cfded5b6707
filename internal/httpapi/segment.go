package httpapi

import (
	"net/http"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// segmentJSON is a segment; CustomersCount is the live count, given by
// the calls that read or write one segment.
type segmentJSON struct {
	ID             int64                 `json:"id"`
	Name           string                `json:"name"`
	Filters        loyalty.SegmentFilter `json:"filters"`
	CustomersCount *int                  `json:"customers_count,omitempty"`
	CreatedAt      string                `json:"created_at"`
	UpdatedAt      string                `json:"updated_at"`
}

func toSegmentJSON(s loyalty.Segment, count *int) segmentJSON {
	return segmentJSON{ID: s.ID, Name: s.Name, Filters: s.Filter, CustomersCount: count,
		CreatedAt: loyalty.FormatTime(s.CreatedAt), UpdatedAt: loyalty.FormatTime(s.UpdatedAt)}
}

// withCount is a segment with its live count.
func withCount(r *http.Request, rc *reqCtx, s loyalty.Segment) (segmentJSON, error) {
	n, err := rc.svc.Segments.Count(r.Context(), tenant(rc), s)
	if err != nil {
		return segmentJSON{}, err
	}
	return toSegmentJSON(s, &n), nil
}

func (s *Server) listSegments(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	q := r.URL.Query()
	lq, err := loyalty.ParseListQuery(q, loyalty.SegmentListSpec)
	if err != nil {
		return err
	}
	list, total, err := rc.svc.Segments.List(r.Context(), tenant(rc), lq)
	if err != nil {
		return err
	}
	data := make([]segmentJSON, len(list))
	for i, seg := range list {
		data[i] = toSegmentJSON(seg, nil)
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "cursor": cursorOf("segments", q, lq, len(list), total),
		"meta": map[string]int{"total": total}})
	return nil
}

func (s *Server) getSegment(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	seg, err := rc.svc.Segments.Get(r.Context(), tenant(rc), r.PathValue("id"))
	if err != nil {
		return err
	}
	out, err := withCount(r, rc, seg)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
	return nil
}

// saveSegment creates a segment (POST, no id) or changes one (PUT).
func (s *Server) saveSegment(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.SegmentInput
	if err := decodeStrict(r, &in); err != nil {
		return err
	}
	id := r.PathValue("id")
	seg, err := auditedOf(s, r, rc, saved(id), namedOrRead("Segment", in.Name, id, func() (string, error) {
		seg, err := rc.svc.Segments.Get(r.Context(), tenant(rc), id)
		return seg.Name, err
	}), func(svc loyalty.Services) (loyalty.Segment, error) {
		return svc.Segments.Save(r.Context(), tenant(rc), id, in)
	})
	if err != nil {
		return err
	}
	out, err := withCount(r, rc, seg)
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

func (s *Server) deleteSegment(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	id := r.PathValue("id")
	if err := s.audited(r, rc, loyalty.AuditProgramDeleted, named("Segment", nameOf(func() (string, error) {
		seg, err := rc.svc.Segments.Get(r.Context(), tenant(rc), id)
		return seg.Name, err
	}), id), func(svc loyalty.Services) error {
		return svc.Segments.Delete(r.Context(), tenant(rc), id)
	}); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// countSegment counts the customers a filter being edited selects,
// saving nothing: the live count of a segment form.
func (s *Server) countSegment(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in struct {
		Filters loyalty.Opt[loyalty.SegmentFilter] `json:"filters"`
	}
	if err := decodeStrict(r, &in); err != nil {
		return err
	}
	f, ok := in.Filters.Value()
	if !ok && in.Filters.Null {
		return loyalty.Invalid("filters", "The filters must be an object; {} selects every customer.")
	}
	n, err := rc.svc.Segments.Preview(r.Context(), tenant(rc), f)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]int{"customers_count": n}})
	return nil
}

// segmentCustomers pages the customers a segment selects now.
func (s *Server) segmentCustomers(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	seg, err := rc.svc.Segments.Get(r.Context(), tenant(rc), r.PathValue("id"))
	if err != nil {
		return err
	}
	return s.writeCustomers(w, r, rc, "segments/"+r.PathValue("id")+"/customers", &seg)
}

func (s *Server) customerTags(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	tags, err := rc.svc.Customers.Tags(r.Context(), tenant(rc), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string][]string{"tags": tags}})
	return nil
}

// setCustomerTags replaces a customer's tags.
func (s *Server) setCustomerTags(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.TagsInput
	if err := decodeStrict(r, &in); err != nil {
		return err
	}
	id := r.PathValue("id")
	tags, err := auditedOf(s, r, rc, loyalty.AuditCustomerUpdated, s.customerTarget(r, rc, id), func(svc loyalty.Services) ([]string, error) {
		return svc.Customers.SetTags(r.Context(), tenant(rc), id, in)
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string][]string{"tags": tags}})
	return nil
}
