package httpapi

import (
	"net/http"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// punchCardJSON is a punch card as the API shows it.
type punchCardJSON struct {
	ID             int64         `json:"id"`
	Name           string        `json:"name"`
	StampsRequired int64         `json:"stamps_required"`
	Qualifies      qualifiesJSON `json:"qualifies"`
	RewardOfferID  int64         `json:"reward_offer_id"`
	Enabled        bool          `json:"enabled"`
	CreatedAt      string        `json:"created_at"`
	UpdatedAt      string        `json:"updated_at"`
}

type qualifiesJSON struct {
	Products   []int64       `json:"products"`
	Categories []int64       `json:"categories"`
	MinAmount  loyalty.Money `json:"min_amount"`
}

func toPunchCardJSON(c loyalty.PunchCard) punchCardJSON {
	return punchCardJSON{ID: c.ID, Name: c.Name, StampsRequired: c.StampsRequired, RewardOfferID: c.RewardOfferID, Enabled: c.Enabled,
		Qualifies: qualifiesJSON{Products: intsOrEmpty(c.Qualifies.Products), Categories: intsOrEmpty(c.Qualifies.Categories),
			MinAmount: c.Qualifies.MinAmount},
		CreatedAt: loyalty.FormatTime(c.CreatedAt), UpdatedAt: loyalty.FormatTime(c.UpdatedAt)}
}

// customerCardJSON is a punch card as a customer stands on it
// (include=punch_cards).
type customerCardJSON struct {
	ID             int64  `json:"id"`
	Name           string `json:"name"`
	Stamps         int64  `json:"stamps"`
	StampsRequired int64  `json:"stamps_required"`
	Completed      int64  `json:"completed"`
}

func toCustomerCardsJSON(cards []loyalty.CustomerCard) []customerCardJSON {
	out := make([]customerCardJSON, len(cards))
	for i, c := range cards {
		out[i] = customerCardJSON{ID: c.Card.ID, Name: c.Card.Name, Stamps: c.Stamps, StampsRequired: c.Card.StampsRequired,
			Completed: c.Completed}
	}
	return out
}

func (s *Server) listPunchCards(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	q := r.URL.Query()
	lq, err := loyalty.ParseListQuery(q, loyalty.PunchCardListSpec)
	if err != nil {
		return err
	}
	list, total, err := rc.svc.PunchCards.List(r.Context(), tenant(rc), lq)
	if err != nil {
		return err
	}
	data := make([]punchCardJSON, len(list))
	for i, c := range list {
		data[i] = toPunchCardJSON(c)
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "cursor": cursorOf("punch-cards", q, lq, len(list), total),
		"meta": map[string]int{"total": total}})
	return nil
}

func (s *Server) getPunchCard(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	c, err := rc.svc.PunchCards.Get(r.Context(), tenant(rc), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toPunchCardJSON(c)})
	return nil
}

// savePunchCard creates a card (POST) or changes one (PUT).
func (s *Server) savePunchCard(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.PunchCardInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	c, err := auditedOf(s, r, rc, saved(r.PathValue("id")), namedOrRead("Punch card", in.Name, r.PathValue("id"), func() (string, error) {
		c, err := rc.svc.PunchCards.Get(r.Context(), tenant(rc), r.PathValue("id"))
		return c.Name, err
	}), func(svc loyalty.Services) (loyalty.PunchCard, error) {
		return svc.PunchCards.Save(r.Context(), tenant(rc), r.PathValue("id"), in)
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toPunchCardJSON(c)})
	return nil
}

func (s *Server) deletePunchCard(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if err := s.audited(r, rc, loyalty.AuditProgramDeleted, named("Punch card", nameOf(func() (string, error) {
		c, err := rc.svc.PunchCards.Get(r.Context(), tenant(rc), r.PathValue("id"))
		return c.Name, err
	}), r.PathValue("id")), func(svc loyalty.Services) error {
		return svc.PunchCards.Delete(r.Context(), tenant(rc), r.PathValue("id"))
	}); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
