package web

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// The console's campaigns: the list with what each did, the form with a
// preview of the message as a recipient sees it (live while it is
// edited), a test to oneself, sending now or later after a confirmation,
// and the report once it went. The owner's and managers' (marketing); the
// use cases are console.MarketingDesk's, the rules the domain's.

func (s *Server) campaignRoutes(mux *http.ServeMux) {
	if s.Marketing == nil {
		return
	}
	mux.Handle("GET /business/campaigns", s.console(loyalty.PermManage, s.campaignList))
	mux.Handle("GET /business/campaigns/new", s.console(loyalty.PermManage, s.campaignEdit))
	mux.Handle("POST /business/campaigns/new", s.console(loyalty.PermManage, s.campaignSave))
	mux.Handle("POST /business/campaigns/preview", s.console(loyalty.PermManage, s.campaignPreview))
	mux.Handle("GET /business/campaigns/{id}", s.console(loyalty.PermManage, s.campaignEdit))
	mux.Handle("POST /business/campaigns/{id}", s.console(loyalty.PermManage, s.campaignSave))
	mux.Handle("GET /business/campaigns/{id}/send", s.console(loyalty.PermManage, s.campaignSendConfirm))
	mux.Handle("POST /business/campaigns/{id}/send", s.console(loyalty.PermManage, s.campaignSend))
	mux.Handle("GET /business/campaigns/{id}/delete", s.console(loyalty.PermManage, s.campaignDeleteConfirm))
	mux.Handle("POST /business/campaigns/{id}/delete", s.console(loyalty.PermManage, s.campaignDelete))
}

// campaignNotices are the campaign pages' notices after a change.
var campaignNotices = map[string]string{
	"campaign_saved":     "The campaign was saved as a draft. Nothing is sent until you send it.",
	"campaign_sending":   "The campaign is on its way: its members are reached in the next minutes, outside its quiet hours.",
	"campaign_scheduled": "The campaign is scheduled. It can be cancelled until it begins.",
	"campaign_deleted":   "The campaign was deleted. Nothing was sent.",
}

// campaignsPage is the body of the campaigns template.
type campaignsPage struct {
	Rows       []campaignRow
	Total      int
	Prev, Next string
}

// campaignRow is a campaign as the list shows it.
type campaignRow struct {
	console.CampaignRow
	State, StateClass string   // its state in words, and the badge's class
	When              string   // when it went or goes
	How               string   // its channels and gift in words
	Results           []string // what happened, once it went
}

func (s *Server) campaignList(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	page = max(page, 1)
	rows, total, err := s.Marketing.Campaigns(r.Context(), a, page)
	if err != nil {
		return err
	}
	loc, err := s.location(r, a)
	if err != nil {
		return err
	}
	p := campaignsPage{Total: total}
	for _, row := range rows {
		p.Rows = append(p.Rows, campaignRowOf(row, loc))
	}
	if page > 1 {
		p.Prev = "/business/campaigns?page=" + strconv.Itoa(page-1)
	}
	if page*console.CampaignsPageSize < total {
		p.Next = "/business/campaigns?page=" + strconv.Itoa(page+1)
	}
	v := s.consoleView(r, a, "Campaigns")
	if n := campaignNotices[r.URL.Query().Get("notice")]; n != "" {
		v.Notice = n
	}
	v.Data = p
	s.render(w, r, http.StatusOK, "campaigns", v)
	return nil
}

// campaignRowOf lays out a campaign for the list.
func campaignRowOf(row console.CampaignRow, loc *time.Location) campaignRow {
	out := campaignRow{CampaignRow: row, How: channelWords(row.Channels)}
	if row.GiftPoints > 0 {
		out.How += " · " + thousands(row.GiftPoints) + " points each"
	} else if row.GiftOfferID != 0 {
		out.How += " · a coupon each"
	} else if row.GiftRuleID != 0 {
		out.How += " · an earning rule for " + strconv.Itoa(row.GiftRuleDays) + " days"
	}
	switch row.State {
	case loyalty.CampaignDraft:
		out.State, out.StateClass, out.When = "Draft", "badge-draft", "Not sent"
	case loyalty.CampaignScheduled:
		out.State, out.StateClass, out.When = "Scheduled", "badge-pending", "Goes on "+dayAndTime(row.SendAt, loc)
	case loyalty.CampaignSending:
		out.State, out.StateClass, out.When = "Sending", "badge-pending", "Began "+dayAndTime(row.StartedAt, loc)
	default:
		out.State, out.StateClass, out.When = "Sent", "badge-approved", "Sent "+dayAndTime(row.StartedAt, loc)
	}
	if row.State == loyalty.CampaignSent || row.State == loyalty.CampaignSending {
		t := row.Tally
		out.Results = append(out.Results, thousands(int64(t.Outcomes[loyalty.RecipientSent]))+" reached",
			thousands(int64(t.Outcomes[loyalty.RecipientHoldout]))+" held out")
		if t.Delivered > 0 {
			out.Results = append(out.Results, thousands(int64(t.Delivered))+" delivered")
		}
		if row.GiftOfferID != 0 {
			out.Results = append(out.Results, thousands(int64(t.GiftsUsed))+" of "+thousands(int64(t.Gifts))+" coupons used")
		} else if row.GiftRuleID != 0 {
			out.Results = append(out.Results, thousands(int64(t.GiftsUsed))+" earned by the rule")
		}
	}
	return out
}

// channelWords names channels as the merchant does: "E-mail, then text".
func channelWords(chs []string) string {
	var words []string
	for i, ch := range chs {
		w := channelNames[ch]
		if i > 0 {
			w = strings.ToLower(w)
		}
		words = append(words, w)
	}
	if len(words) == 0 {
		return "No channel"
	}
	return strings.Join(words, ", then ")
}

// channelNames are the channels in the merchant's words.
var channelNames = map[string]string{loyalty.CampaignEmail: "E-mail", loyalty.CampaignSMS: "Text message", loyalty.CampaignPush: "App"}

// dayAndTime writes a moment in the business's time zone: "Nov 12, 2026 at 09:30".
func dayAndTime(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return ""
	}
	return t.In(loc).Format("Jan 2, 2006 at 15:04")
}

// campaignFormPage is the body of the campaign_form template.
type campaignFormPage struct {
	Heading, Action string
	ID              string // "" until saved
	Delete          string // the link to delete it; "" for a new one
	Form            campaignForm
	Segments        []segmentOption
	Offers          []option
	Channels        []option
	Tokens          []option
	Preview         previewView
	Me              string // where a test goes
}

// segmentOption is a segment the campaign may go to, with its count now.
type segmentOption struct {
	Value, Name, Count string
}

// campaignEdit shows a new campaign's form, or a draft's, or the report
// of one that went.
func (s *Server) campaignEdit(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	form := newCampaignForm()
	id := r.PathValue("id")
	if id != "" {
		row, err := s.Marketing.Campaign(r.Context(), a, id)
		if err != nil {
			return err
		}
		if row.State != loyalty.CampaignDraft {
			return s.campaignReport(w, r, a, row)
		}
		form = campaignFormOf(row.Campaign)
	} else if seg := r.URL.Query().Get("segment"); seg != "" {
		form.SegmentID = seg
	}
	return s.renderCampaign(w, r, a, http.StatusOK, id, form, nil, "")
}

// renderCampaign shows a campaign's form (id "" for a new one) with the
// preview of its message as it stands.
func (s *Server) renderCampaign(w http.ResponseWriter, r *http.Request, a loyalty.Actor, status int, id string, form campaignForm,
	errs map[string][]string, msg string) error {
	c, err := s.Marketing.CampaignChoices(r.Context(), a)
	if err != nil {
		return err
	}
	pv, err := s.previewOf(r, a, form)
	if err != nil {
		return err
	}
	p := campaignFormPage{Heading: "New campaign", Action: "/business/campaigns/new", ID: id, Form: form, Preview: pv,
		Tokens: mergeTokens, Me: a.Email,
		Channels: []option{{loyalty.CampaignEmail, "E-mail"}, {loyalty.CampaignSMS, "Text message"}, {loyalty.CampaignPush, "App notification"}}}
	if id != "" {
		p.Heading, p.Action, p.Delete = "Edit campaign", "/business/campaigns/"+id, "/business/campaigns/"+id+"/delete"
	}
	for _, seg := range c.Segments {
		p.Segments = append(p.Segments, segmentOption{Value: strconv.FormatInt(seg.ID, 10), Name: seg.Name, Count: peopleCount(seg.Count)})
	}
	for _, o := range c.Offers {
		p.Offers = append(p.Offers, option{strconv.FormatInt(o.ID, 10), o.Title})
	}
	v := s.consoleView(r, a, p.Heading)
	if key := r.URL.Query().Get("notice"); key == "test_sent" {
		v.Notice = "A test of the e-mail is on its way to " + a.Email + ". Nobody else received anything."
	}
	v.Fields, v.Error, v.Data, v.Script = errs, msg, p, "campaigns.js"
	s.render(w, r, status, "campaign_form", v)
	return nil
}

// peopleCount writes a number of members: "1 member", "1,204 members".
func peopleCount(n int) string {
	if n == 1 {
		return "1 member"
	}
	return thousands(int64(n)) + " members"
}

// campaignSave saves the posted campaign as a draft; then, by the button
// pressed, shows the list, sends a test to the actor or asks to confirm
// sending. The Preview button shows the form again, saving nothing.
func (s *Server) campaignSave(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	id := r.PathValue("id")
	form := postedCampaign(r.PostForm)
	if r.PostForm.Get("preview") != "" {
		return s.renderCampaign(w, r, a, http.StatusOK, id, form, nil, "")
	}
	in, bad := form.input()
	var c loyalty.Campaign
	if len(bad) == 0 {
		var err error
		c, err = s.Marketing.SaveCampaign(r.Context(), a, id, in)
		if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
			bad = campaignRefusal(e.Fields)
		} else if err != nil {
			return err
		}
	}
	if len(bad) > 0 {
		return s.renderCampaign(w, r, a, http.StatusUnprocessableEntity, id, form, bad,
			"The campaign was not saved: please correct what is marked below.")
	}
	saved := strconv.FormatInt(c.ID, 10)
	switch {
	case r.PostForm.Get("test") != "":
		_, err := s.Marketing.TestCampaign(r.Context(), a, saved)
		if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
			return s.renderCampaign(w, r, a, http.StatusUnprocessableEntity, saved, form, campaignRefusal(e.Fields),
				"The draft was saved, but no test was sent: please correct what is marked below.")
		} else if err != nil {
			return err
		}
		redirect(w, "/business/campaigns/"+saved+"?notice=test_sent#test")
	case r.PostForm.Get("send") != "":
		redirect(w, "/business/campaigns/"+saved+"/send")
	default:
		redirect(w, "/business/campaigns?notice=campaign_saved")
	}
	return nil
}

// campaignPreview answers the form's script: the preview of the message
// as the form stands, as HTML to put in place. Nothing is saved.
func (s *Server) campaignPreview(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	pv, err := s.previewOf(r, a, postedCampaign(r.PostForm))
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := s.pages["campaign_form"].ExecuteTemplate(&buf, "campaign-preview", pv); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(buf.Bytes())
	return nil
}

func (s *Server) campaignDeleteConfirm(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	row, err := s.Marketing.Campaign(r.Context(), a, r.PathValue("id"))
	if err != nil {
		return err
	}
	p := confirmPage{Heading: "Delete the campaign " + row.Name + "?", Message: "The draft and its message are deleted. Nothing was sent.",
		Submit: "Delete campaign", Back: "/business/campaigns/" + strconv.FormatInt(row.ID, 10)}
	if row.State == loyalty.CampaignScheduled {
		p.Heading, p.Submit = "Cancel the campaign "+row.Name+"?", "Cancel and delete"
		p.Message = "It will not be sent: the campaign and its message are deleted."
	}
	s.renderConfirm(w, r, s.consoleView(r, a, ""), p)
	return nil
}

func (s *Server) campaignDelete(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	return deleteConfirmed(w, r, func() error { return s.Marketing.DeleteCampaign(r.Context(), a, r.PathValue("id")) },
		"/business/campaigns?notice=campaign_deleted")
}
