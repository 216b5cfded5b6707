package httpapi

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// eventJSON is an event of the business's feed on the wire.
type eventJSON struct {
	ID         string          `json:"id"`
	Sequence   int64           `json:"sequence"`
	Type       string          `json:"type"`
	BusinessID string          `json:"business_id"`
	CreatedAt  string          `json:"created_at"`
	Data       json.RawMessage `json:"data"`
}

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
	list, err := s.Events.List(r.Context(), loyalty.Business{ID: rc.businessID}, eq)
	if err != nil {
		return err
	}
	data := make([]eventJSON, len(list))
	next := eq.After
	for i, e := range list {
		data[i] = eventJSON{ID: e.ID, Sequence: e.Seq, Type: e.Type, BusinessID: e.BusinessID,
			CreatedAt: loyalty.FormatTime(e.CreatedAt), Data: e.Data}
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
