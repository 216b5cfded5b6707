package httpapi

import (
	"net/http"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// rewardJSON is a catalog item or custom reward on the wire, with the
// reference platform's type and value fields.
type rewardJSON struct {
	ID                int64                `json:"id"`
	Kind              string               `json:"kind"`
	TypeID            *int                 `json:"type_id"`
	Type              string               `json:"type"`
	Title             string               `json:"title"`
	Description       string               `json:"description"`
	Points            int64                `json:"points"`
	Amount            loyalty.Money        `json:"amount"`
	RealValue         loyalty.Money        `json:"real_value"`
	DiscountValue     loyalty.Money        `json:"discount_value"`
	RedeemForGiftCard bool                 `json:"redeem_for_gift_card"`
	PartnerReward     bool                 `json:"partner_reward"`
	PublishAt         string               `json:"publish_at"`
	ExpiresAt         *string              `json:"expires_at"`
	Images            []loyalty.Image      `json:"images"`
	ExternalID        string               `json:"external_id"`
	RewardLanguages   []rewardLanguageJSON `json:"reward_languages"`
	Enabled           bool                 `json:"enabled"`
	CreatedAt         string               `json:"created_at"`
	UpdatedAt         string               `json:"updated_at"`
}

// rewardLanguageJSON is one entry of reward_languages.
type rewardLanguageJSON struct {
	LanguageID      int    `json:"language_id"`
	Title           string `json:"title"`
	Description     string `json:"description"`
	TermsConditions string `json:"terms_conditions"`
	Link            string `json:"link"`
}

func toRewardJSON(r loyalty.Reward) rewardJSON {
	out := rewardJSON{ID: r.ID, Kind: r.Kind, Type: loyalty.RewardTypeName(r), Title: r.Title, Description: r.Description, Points: r.Points,
		Amount: r.Amount, RealValue: r.RealValue, DiscountValue: r.DiscountValue, RedeemForGiftCard: r.RedeemForGiftCard,
		PartnerReward: r.PartnerReward, PublishAt: loyalty.FormatTime(r.CreatedAt), ExpiresAt: loyalty.OptTime(r.ExpiresAt),
		Images: imagesOrEmpty(r.Images), ExternalID: r.ExternalID, RewardLanguages: []rewardLanguageJSON{}, Enabled: r.Enabled,
		CreatedAt: loyalty.FormatTime(r.CreatedAt), UpdatedAt: loyalty.FormatTime(r.UpdatedAt)}
	if r.TypeID != 0 {
		id := r.TypeID
		out.TypeID = &id
	}
	if !r.StartsAt.IsZero() {
		out.PublishAt = loyalty.FormatTime(r.StartsAt)
	}
	for _, t := range loyalty.TextsOf(r.Title, r.Description, r.Texts) {
		out.RewardLanguages = append(out.RewardLanguages, rewardLanguageJSON{LanguageID: t.LanguageID, Title: t.Title,
			Description: t.Description, TermsConditions: t.TermsConditions, Link: t.Link})
	}
	return out
}

// rewardDetailJSON is a reward as the business manages it: with who may
// redeem it and where.
type rewardDetailJSON struct {
	rewardJSON
	TargetedFlag        int          `json:"targeted_flag"`
	Customers           []string     `json:"customers"`
	RedemptionUserTiers []intRefJSON `json:"redemption_user_tiers"`
	Branches            []string     `json:"branches"`
}

// intRefJSON names an object by its integer id.
type intRefJSON struct {
	ID int64 `json:"id"`
}

func toRewardDetailJSON(r loyalty.Reward) rewardDetailJSON {
	out := rewardDetailJSON{rewardJSON: toRewardJSON(r), TargetedFlag: r.Audience, Customers: idsOrEmpty(r.TargetIDs),
		RedemptionUserTiers: []intRefJSON{}, Branches: idsOrEmpty(r.BranchIDs)}
	for _, id := range r.TierLevelIDs {
		out.RedemptionUserTiers = append(out.RedemptionUserTiers, intRefJSON{ID: id})
	}
	return out
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
	list, total, err := rc.svc.Rewards.List(r.Context(), tenant(rc), lq)
	if err != nil {
		return err
	}
	data := make([]rewardDetailJSON, len(list))
	for i, rw := range list {
		data[i] = toRewardDetailJSON(rw)
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
	rw, err := rc.svc.Rewards.Get(r.Context(), tenant(rc), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toRewardDetailJSON(rw)})
	return nil
}

func (s *Server) createReward(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.RewardInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	rw, err := auditedOf(s, r, rc, loyalty.AuditProgramCreated, named("Reward", in.Title, ""), func(svc loyalty.Services) (loyalty.Reward, error) {
		return svc.Rewards.Create(r.Context(), tenant(rc), in)
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toRewardDetailJSON(rw)})
	return nil
}

func (s *Server) updateReward(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.RewardInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	rw, err := auditedOf(s, r, rc, loyalty.AuditProgramUpdated, namedOrRead("Reward", in.Title, r.PathValue("id"), func() (string, error) {
		rw, err := rc.svc.Rewards.Get(r.Context(), tenant(rc), r.PathValue("id"))
		return rw.Title, err
	}), func(svc loyalty.Services) (loyalty.Reward, error) {
		return svc.Rewards.Update(r.Context(), tenant(rc), r.PathValue("id"), in)
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toRewardDetailJSON(rw)})
	return nil
}

func (s *Server) deleteReward(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if err := s.audited(r, rc, loyalty.AuditProgramDeleted, named("Reward", nameOf(func() (string, error) {
		rw, err := rc.svc.Rewards.Get(r.Context(), tenant(rc), r.PathValue("id"))
		return rw.Title, err
	}), r.PathValue("id")), func(svc loyalty.Services) error {
		return svc.Rewards.Delete(r.Context(), tenant(rc), r.PathValue("id"))
	}); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) customerRewards(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	q := r.URL.Query()
	lq, err := loyalty.ParseListQuery(q, loyalty.CustomerRewardSpec)
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	list, total, err := rc.svc.Rewards.CustomerRewards(r.Context(), tenant(rc), id, lq)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": rewardsJSON(list),
		"links": pageLinks("customers/"+strings.ToLower(id)+"/rewards", q, lq, total), "meta": pageMeta(lq, len(list), total)})
	return nil
}
