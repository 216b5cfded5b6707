package httpapi

import (
	"net/http"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// rewardJSON is a catalog item or custom reward as the business manages it.
type rewardJSON struct {
	ID            int64           `json:"id"`
	Kind          string          `json:"kind"`
	Title         string          `json:"title"`
	Description   string          `json:"description"`
	Points        int64           `json:"points"`
	PartnerReward bool            `json:"partner_reward"`
	ExpiresAt     *string         `json:"expires_at"`
	Images        []loyalty.Image `json:"images"`
	Enabled       bool            `json:"enabled"`
	CreatedAt     string          `json:"created_at"`
	UpdatedAt     string          `json:"updated_at"`
}

func toRewardJSON(r loyalty.Reward) rewardJSON {
	return rewardJSON{ID: r.ID, Kind: r.Kind, Title: r.Title, Description: r.Description, Points: r.Points,
		PartnerReward: r.PartnerReward, ExpiresAt: optTime(r.ExpiresAt),
		Images: imagesOrEmpty(r.Images), Enabled: r.Enabled,
		CreatedAt: loyalty.FormatTime(r.CreatedAt), UpdatedAt: loyalty.FormatTime(r.UpdatedAt)}
}

// rewardsJSON is a list of rewards on the wire.
func rewardsJSON(list []loyalty.Reward) []rewardJSON {
	out := make([]rewardJSON, len(list))
	for i, rw := range list {
		out[i] = toRewardJSON(rw)
	}
	return out
}

func (s *Server) listRewards(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	q := r.URL.Query()
	lq, err := loyalty.ParseListQuery(q, loyalty.RewardListSpec)
	if err != nil {
		return err
	}
	list, total, err := s.Rewards.List(r.Context(), tenant(rc), lq)
	if err != nil {
		return err
	}
	data := make([]rewardJSON, len(list))
	for i, rw := range list {
		data[i] = toRewardJSON(rw)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"data":   data,
		"cursor": cursorOf("rewards", q, lq, len(list), total),
		"meta":   map[string]int{"total": total},
	})
	return nil
}

func (s *Server) getReward(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	rw, err := s.Rewards.Get(r.Context(), tenant(rc), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toRewardJSON(rw)})
	return nil
}

func (s *Server) createReward(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.RewardInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	rw, err := s.Rewards.Create(r.Context(), tenant(rc), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toRewardJSON(rw)})
	return nil
}

func (s *Server) updateReward(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.RewardInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	rw, err := s.Rewards.Update(r.Context(), tenant(rc), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toRewardJSON(rw)})
	return nil
}

func (s *Server) deleteReward(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if err := s.Rewards.Delete(r.Context(), tenant(rc), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
