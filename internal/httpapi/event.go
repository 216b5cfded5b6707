package httpapi

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// listEvents answers GET /events: the business's events after a sequence
// number, oldest first. The cursor always names where to go on from (the
// last sequence given, or the one asked after when none is new yet): a
// feed has no last page.
func (s *Server) listEvents(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	q := r.URL.Query()
	eq, err := loyalty.ParseEventQuery(q)
	if err != nil {
		return err
	}
	list, err := rc.svc.Events.List(r.Context(), loyalty.Business{ID: rc.businessID}, eq)
	if err != nil {
		return err
	}
	data := make([]loyalty.EventJSON, len(list))
	next := eq.After
	for i, e := range list {
		data[i] = loyalty.NewEventJSON(e)
		next = e.Seq
	}
	nq := url.Values{}
	for k, v := range q {
		if k != "cursor" {
			nq[k] = v
		}
	}
	nq.Set("after", strconv.FormatInt(next, 10))
	n, uri := int(next), "events?"+nq.Encode()
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "cursor": cursor{Count: len(data), Next: &n, NextURI: &uri}})
	return nil
}
