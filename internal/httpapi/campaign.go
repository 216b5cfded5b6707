package httpapi

import (
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// campaignJSON is a campaign.
type campaignJSON struct {
	ID              int64                  `json:"id"`
	Name            string                 `json:"name"`
	SegmentID       int64                  `json:"segment_id"`
	Channels        []string               `json:"channels"`
	Subject         string                 `json:"subject"`
	EmailBody       string                 `json:"email_body"`
	SMSBody         string                 `json:"sms_body"`
	Gift            *loyalty.CampaignGift  `json:"gift"`
	SkipReachedDays int                    `json:"skip_reached_days"`
	QuietHours      *loyalty.CampaignQuiet `json:"quiet_hours"`
	HoldoutPercent  int                    `json:"holdout_percent"`
	ReportDays      int                    `json:"report_days"`
	State           string                 `json:"state"`
	SendAt          *string                `json:"send_at"`
	StartedAt       *string                `json:"started_at"`
	FinishedAt      *string                `json:"finished_at"`
	CreatedAt       string                 `json:"created_at"`
	UpdatedAt       string                 `json:"updated_at"`
}

func optTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := loyalty.FormatTime(t)
	return &s
}

func toCampaignJSON(c loyalty.Campaign) campaignJSON {
	out := campaignJSON{ID: c.ID, Name: c.Name, SegmentID: c.SegmentID, Channels: c.Channels, Subject: c.Subject,
		EmailBody: c.EmailBody, SMSBody: c.SMSBody, SkipReachedDays: c.SkipReachedDays, HoldoutPercent: c.HoldoutPercent,
		ReportDays: c.ReportDays, State: c.State, SendAt: optTime(c.SendAt), StartedAt: optTime(c.StartedAt),
		FinishedAt: optTime(c.FinishedAt), CreatedAt: loyalty.FormatTime(c.CreatedAt), UpdatedAt: loyalty.FormatTime(c.UpdatedAt)}
	if out.Channels == nil {
		out.Channels = []string{}
	}
	out.Gift = c.Gift()
	if c.QuietStart != "" {
		out.QuietHours = &loyalty.CampaignQuiet{Start: c.QuietStart, End: c.QuietEnd}
	}
	return out
}

func (s *Server) listCampaigns(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	return listPage(w, r, rc, loyalty.CampaignListSpec, "campaigns", rc.svc.Campaigns.List, toCampaignJSON)
}

// campaignReply is toCampaignJSON for the calls that may fail writing
// an object out.
func campaignReply(c loyalty.Campaign) (campaignJSON, error) { return toCampaignJSON(c), nil }

func (s *Server) getCampaign(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	return getOne(w, r, rc, rc.svc.Campaigns.Get, campaignReply)
}

// campaignName reads the name of the campaign the path names.
func campaignName(r *http.Request, rc *reqCtx) func() (string, error) {
	return nameRead(r, rc, rc.svc.Campaigns.Get, func(c loyalty.Campaign) string { return c.Name })
}

// saveCampaign creates a campaign (POST) or changes a draft (PUT).
func (s *Server) saveCampaign(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.CampaignInput
	if err := decodeStrict(r, &in); err != nil {
		return err
	}
	return saveOne(s, w, r, rc, "Campaign", in.Name, campaignName(r, rc), func(svc loyalty.Services, id string) (loyalty.Campaign, error) {
		return svc.Campaigns.Save(r.Context(), tenant(rc), id, in)
	}, campaignReply)
}

func (s *Server) deleteCampaign(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	return s.deleteOne(w, r, rc, "Campaign", campaignName(r, rc), func(svc loyalty.Services, id string) error {
		return svc.Campaigns.Delete(r.Context(), tenant(rc), id)
	})
}

// sendCampaign schedules a draft: now, or at send_at.
func (s *Server) sendCampaign(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in struct {
		SendAt loyalty.Opt[string] `json:"send_at"`
	}
	if err := decodeStrict(r, &in); err != nil {
		return err
	}
	var at time.Time
	if v, ok := in.SendAt.Value(); ok {
		t, err := loyalty.ParseTime(v)
		if err != nil {
			return loyalty.Invalid("send_at", "The send_at must be an RFC 3339 time.")
		}
		at = t
	}
	id := r.PathValue("id")
	c, err := auditedOf(s, r, rc, loyalty.AuditProgramUpdated, namedOrRead("Campaign sent", loyalty.Opt[string]{}, id, campaignName(r, rc)), func(svc loyalty.Services) (loyalty.Campaign, error) {
		return svc.Campaigns.Send(r.Context(), tenant(rc), id, at)
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toCampaignJSON(c)})
	return nil
}

// estimateJSON is a difference with its 95 % interval, in two decimals;
// null when a group is too small.
type estimateJSON struct {
	Value string `json:"value"`
	Low   string `json:"low"`
	High  string `json:"high"`
}

func estimateOf(d loyalty.Difference) *estimateJSON {
	if !d.Set {
		return nil
	}
	return &estimateJSON{Value: fixed2(d.Value), Low: fixed2(d.Low), High: fixed2(d.High)}
}

// fixed2 writes an estimate with two decimals (a statistic, not money
// that is kept: rounding is fine).
func fixed2(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "0.00"
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

func groupOf(g loyalty.GroupMeans) map[string]any {
	return map[string]any{"members": g.Members, "visits": fixed2(g.Visits), "spend": fixed2(g.Spend), "points": fixed2(g.Points)}
}

// campaignReport answers what a campaign did.
func (s *Server) campaignReport(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	rep, err := rc.svc.Campaigns.Report(r.Context(), tenant(rc), r.PathValue("id"))
	if err != nil {
		return err
	}
	out := map[string]any{
		"campaign_id": rep.Campaign.ID, "state": rep.Campaign.State,
		"outcomes": rep.Tally.Outcomes, "channels": rep.Tally.Channels, "delivered": rep.Tally.Delivered, "gifts": rep.Tally.Gifts,
		"gifts_used": rep.Tally.GiftsUsed,
		"window":     nil, "comparison": nil,
	}
	if !rep.From.IsZero() {
		out["window"] = map[string]any{"from": loyalty.FormatTime(rep.From), "to": loyalty.FormatTime(rep.To),
			"days": rep.Campaign.ReportDays, "complete": rep.Complete}
		out["comparison"] = map[string]any{
			"recipients": groupOf(rep.Treated), "holdout": groupOf(rep.Holdout),
			"difference": map[string]any{"visits": estimateOf(rep.Visits), "spend": estimateOf(rep.Spend), "points": estimateOf(rep.Points)},
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
	return nil
}
