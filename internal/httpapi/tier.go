package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// tierLevelJSON is a tier level on the wire (spec 2.3), as events show it too.
type tierLevelJSON = loyalty.TierLevelJSON

// tierJSON is a tier program on the wire (spec 2.3); tier_levels only when asked.
type tierJSON struct {
	ID                 int64           `json:"id"`
	TiersSequence      []string        `json:"tiers_sequence"`
	TiersRelation      int             `json:"tiers_relation"`
	ResetType          int             `json:"reset_type"`
	ResetPeriodMonth   int             `json:"reset_period_month"`
	BasePreviousPeriod int             `json:"base_previous_period"`
	DowngradePolicy    string          `json:"downgrade_policy"`
	Enabled            bool            `json:"enabled"`
	TierLevels         []tierLevelJSON `json:"tier_levels,omitempty"`
}

var toTierLevelJSON = loyalty.NewTierLevelJSON

func toTierJSON(t loyalty.Tier, withLevels bool) tierJSON {
	out := tierJSON{ID: t.ID, TiersSequence: t.Criteria(), TiersRelation: t.TiersRelation, ResetType: t.ResetType,
		ResetPeriodMonth: t.ResetPeriodMonth, BasePreviousPeriod: t.BasePreviousPeriod,
		DowngradePolicy: t.DowngradePolicy, Enabled: t.Enabled}
	for _, l := range t.Levels {
		if withLevels {
			out.TierLevels = append(out.TierLevels, toTierLevelJSON(l))
		}
	}
	if withLevels && out.TierLevels == nil {
		out.TierLevels = []tierLevelJSON{}
	}
	return out
}

// tierProgressJSON is a customer's standing in the enabled tier program
// (spec 2.3, include=tier_progress).
type tierProgressJSON struct {
	TotalAmount   loyalty.Money  `json:"total_amount"`
	TotalPoints   int64          `json:"total_points"`
	TotalVisits   int64          `json:"total_visits"`
	LeftAmount    *loyalty.Money `json:"left_amount"`
	LeftPoints    *int64         `json:"left_points"`
	LeftVisits    *int64         `json:"left_visits"`
	TiersRelation int            `json:"tiers_relation"`
	StartDate     *string        `json:"start_date"`
	EndDate       *string        `json:"end_date"`
	TierLevel     *string        `json:"tier_level"`
	NextTierLevel *string        `json:"next_tier_level"`
	TierProgress  float64        `json:"tier_progress"`
}

func toTierProgressJSON(st loyalty.TierStatus) tierProgressJSON {
	out := tierProgressJSON{TotalAmount: st.Totals.Amount, TotalPoints: st.Totals.Points, TotalVisits: st.Totals.Visits,
		LeftAmount: st.LeftAmount, LeftPoints: st.LeftPoints, LeftVisits: st.LeftVisits, TiersRelation: st.Relation,
		StartDate: optionalTime(st.StartDate), EndDate: optionalTime(st.EndDate), TierProgress: st.Percent}
	if st.Level != nil {
		out.TierLevel = &st.Level.Name
	}
	if st.Next != nil {
		out.NextTierLevel = &st.Next.Name
	}
	return out
}

// optionalTime formats a time, or gives null for the zero time.
func optionalTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := loyalty.FormatTime(t)
	return &s
}

// programID reads the integer id of a path, a bad request when it is not one.
func programID(r *http.Request, what string) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, loyalty.Errorf(loyalty.EBadRequest, "Invalid %s id supplied.", what)
	}
	return id, nil
}

// tierRelationships checks the include and relationships parameters of
// the tier endpoints: they take no include, and tier_levels, which they
// always include, is accepted so that clients of the reference platform
// work unchanged.
func tierRelationships(r *http.Request) error {
	_, _, err := queryNames(r, nil, []string{"tier_levels"})
	return err
}

func writeTier(w http.ResponseWriter, t loyalty.Tier) {
	writeJSON(w, http.StatusOK, map[string]any{"data": toTierJSON(t, true)})
}

func (s *Server) listTiers(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if err := tierRelationships(r); err != nil {
		return err
	}
	q := r.URL.Query()
	lq, err := loyalty.ParseListQuery(q, loyalty.TierListSpec)
	if err != nil {
		return err
	}
	list, total, err := rc.svc.Tiers.Page(r.Context(), loyalty.Business{ID: rc.businessID}, lq)
	if err != nil {
		return err
	}
	data := make([]tierJSON, len(list))
	for i, t := range list {
		data[i] = toTierJSON(t, true)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"data":   data,
		"cursor": cursorOf("tiers", q, lq, len(list), total),
		"meta":   map[string]int{"total": total},
	})
	return nil
}

func (s *Server) getTier(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if err := tierRelationships(r); err != nil {
		return err
	}
	id, err := programID(r, "tier")
	if err != nil {
		return err
	}
	t, err := rc.svc.Tiers.Get(r.Context(), loyalty.Business{ID: rc.businessID}, id)
	if err != nil {
		return err
	}
	writeTier(w, t)
	return nil
}

func (s *Server) createTier(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.TierInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	t, err := auditedOf(s, r, rc, loyalty.AuditProgramCreated, named("Tier program", firstLevel(in), ""), func(svc loyalty.Services) (loyalty.Tier, error) {
		return svc.Tiers.Create(r.Context(), loyalty.Business{ID: rc.businessID}, in)
	})
	if err != nil {
		return err
	}
	writeTier(w, t)
	return nil
}

func (s *Server) updateTier(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	id, err := programID(r, "tier")
	if err != nil {
		return err
	}
	var in loyalty.TierInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	t, err := auditedOf(s, r, rc, loyalty.AuditProgramUpdated, namedOrRead("Tier program", firstLevel(in), strconv.FormatInt(id, 10), func() (string, error) {
		t, err := rc.svc.Tiers.Get(r.Context(), loyalty.Business{ID: rc.businessID}, id)
		if len(t.Levels) == 0 {
			return "", err
		}
		return t.Levels[0].Name, err
	}), func(svc loyalty.Services) (loyalty.Tier, error) {
		return svc.Tiers.Update(r.Context(), loyalty.Business{ID: rc.businessID}, id, in)
	})
	if err != nil {
		return err
	}
	writeTier(w, t)
	return nil
}

// firstLevel is the name of a tier program's first level in a body, which
// names the program in the audit log as the console names it.
func firstLevel(in loyalty.TierInput) loyalty.Opt[string] {
	if levels, ok := in.TierLevels.Value(); ok && len(levels) > 0 {
		return levels[0].Name
	}
	return loyalty.Opt[string]{}
}
