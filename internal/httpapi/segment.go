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
	return listPage(w, r, rc, loyalty.SegmentListSpec, "segments", rc.svc.Segments.List,
		func(seg loyalty.Segment) segmentJSON { return toSegmentJSON(seg, nil) })
}

func (s *Server) getSegment(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	return getOne(w, r, rc, rc.svc.Segments.Get, func(seg loyalty.Segment) (segmentJSON, error) { return withCount(r, rc, seg) })
}

// segmentName reads the name of the segment the path names.
func segmentName(r *http.Request, rc *reqCtx) func() (string, error) {
	return nameRead(r, rc, rc.svc.Segments.Get, func(seg loyalty.Segment) string { return seg.Name })
}

// saveSegment creates a segment (POST, no id) or changes one (PUT).
func (s *Server) saveSegment(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.SegmentInput
	if err := decodeStrict(r, &in); err != nil {
		return err
	}
	return saveOne(s, w, r, rc, "Segment", in.Name, segmentName(r, rc), func(svc loyalty.Services, id string) (loyalty.Segment, error) {
		return svc.Segments.Save(r.Context(), tenant(rc), id, in)
	}, func(seg loyalty.Segment) (segmentJSON, error) { return withCount(r, rc, seg) })
}

func (s *Server) deleteSegment(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	return s.deleteOne(w, r, rc, "Segment", segmentName(r, rc), func(svc loyalty.Services, id string) error {
		return svc.Segments.Delete(r.Context(), tenant(rc), id)
	})
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
