package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// Sending a campaign from the console: the confirmation of what it will do, and the send.

// campaignSendPage is the body of the campaign_send template: what
// sending will do, and when.
type campaignSendPage struct {
	Campaign console.CampaignRow
	Members  string // the segment's count now, in words; "" when the segment was deleted
	Effects  []string
	Date     string // the schedule's day and time as posted or proposed
	Time     string
	Zone     string // the business's time zone
}

func (s *Server) campaignSendConfirm(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	return s.renderSend(w, r, a, http.StatusOK, url.Values{}, nil, "")
}

// renderSend shows the confirmation of sending a draft; one that is no
// longer a draft is shown instead.
func (s *Server) renderSend(w http.ResponseWriter, r *http.Request, a loyalty.Actor, status int, posted url.Values,
	errs map[string][]string, msg string) error {
	row, err := s.Marketing.Campaign(r.Context(), a, r.PathValue("id"))
	if err != nil {
		return err
	}
	if row.State != loyalty.CampaignDraft {
		redirect(w, "/business/campaigns/"+strconv.FormatInt(row.ID, 10))
		return nil
	}
	b, loc, err := s.businessIn(r, a)
	if err != nil {
		return err
	}
	p := campaignSendPage{Campaign: row, Zone: loc.String(), Date: posted.Get("send_date"), Time: posted.Get("send_time")}
	if p.Date == "" {
		tomorrow := time.Now().Add(b.ClockOffset).In(loc).AddDate(0, 0, 1)
		p.Date, p.Time = tomorrow.Format(time.DateOnly), "10:00"
	}
	seg, err := s.Desk.Segment(r.Context(), a, strconv.FormatInt(row.SegmentID, 10))
	if err == nil {
		p.Members = peopleCount(seg.Count)
	} else if loyalty.ErrorCode(err) != loyalty.ENotFound {
		return err
	}
	p.Effects = sendEffects(row.Campaign, b)
	v := s.consoleView(r, a, "Send "+row.Name)
	v.Fields, v.Error, v.Data = errs, msg, p
	s.render(w, r, status, "campaign_send", v)
	return nil
}

// sendEffects say what sending a campaign does, one line each.
func sendEffects(c loyalty.Campaign, b loyalty.Business) []string {
	out := []string{"Each member is reached once, by " + strings.ToLower(channelWords(c.Channels)) +
		", as they agreed to hear from you; whoever did not agree gets nothing."}
	if c.HoldoutPercent > 0 {
		out = append(out, "About "+strconv.Itoa(c.HoldoutPercent)+"\u00a0% of them, drawn at random, get nothing: comparing them with the others shows what the campaign brought.")
	}
	switch {
	case c.GiftPoints > 0:
		out = append(out, "Each member reached is given "+thousands(c.GiftPoints)+" points.")
	case c.GiftOfferID != 0:
		out = append(out, "Each member reached is given a coupon of the offer chosen.")
	case c.GiftRuleID != 0:
		out = append(out, "Each member reached earns by the campaign’s earning rule for "+strconv.Itoa(c.GiftRuleDays)+" days.")
	}
	if c.SkipReachedDays > 0 {
		out = append(out, "Members reached by a campaign in the last "+strconv.Itoa(c.SkipReachedDays)+" days are skipped.")
	}
	if c.QuietStart != "" {
		out = append(out, "Nothing goes out between "+c.QuietStart+" and "+c.QuietEnd+"; sending waits until then.")
	}
	return append(out, "Once it begins it cannot be stopped or changed.")
}

// campaignSend sends a draft now, or schedules it for the day and time
// posted in the business's time zone.
func (s *Server) campaignSend(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	if !confirmed(w, r) {
		return nil
	}
	id := r.PathValue("id")
	var at time.Time
	later := r.PostForm.Get("when") == "later"
	if later {
		b, loc, err := s.businessIn(r, a)
		if err != nil {
			return err
		}
		day, clock := strings.TrimSpace(r.PostForm.Get("send_date")), strings.TrimSpace(r.PostForm.Get("send_time"))
		at, err = time.ParseInLocation(time.DateOnly+" 15:04", day+" "+clock, loc)
		switch {
		case err != nil:
			return s.renderSend(w, r, a, http.StatusUnprocessableEntity, r.PostForm,
				map[string][]string{"send_at": {"Enter the day and the time to send it."}}, "")
		case at.Before(time.Now().Add(b.ClockOffset)):
			return s.renderSend(w, r, a, http.StatusUnprocessableEntity, r.PostForm,
				map[string][]string{"send_at": {"That time has passed: choose a later one, or send it now."}}, "")
		}
	}
	_, err := s.Marketing.SendCampaign(r.Context(), a, id, at)
	if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
		var words []string
		for _, msgs := range campaignRefusal(e.Fields) {
			words = append(words, msgs...)
		}
		return s.renderSend(w, r, a, http.StatusUnprocessableEntity, r.PostForm, nil,
			"The campaign was not sent: "+strings.Join(words, " ")+" Edit it, then send it.")
	} else if err != nil {
		return err
	}
	if later {
		redirect(w, "/business/campaigns/"+id+"?notice=campaign_scheduled")
	} else {
		redirect(w, "/business/campaigns/"+id+"?notice=campaign_sending")
	}
	return nil
}
