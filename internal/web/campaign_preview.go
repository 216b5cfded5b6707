package web

import (
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// previewView is a campaign's message as a recipient sees it, rendered by
// the domain (CampaignRunner.Preview) for the form as it stands: the
// e-mail with its subject and unsubscribe footer, the text message, the
// app's notification.
type previewView struct {
	Channels bool   // a channel is chosen: there is something to show
	Segment  bool   // a segment is chosen
	Sample   string // whose details fill the fields; "" for placeholders
	From     string // the business, as the e-mail's sender
	Email    *loyalty.Message
	Text     *loyalty.Message
	Push     *loyalty.PushPreview
	Unknown  []string // merge fields that are not personal fields, written as in the template
	TextSize string   // the text's length: "132 characters, 1 message"
}

// previewOf renders the preview of a campaign's form.
func (s *Server) previewOf(r *http.Request, a loyalty.Actor, f campaignForm) (previewView, error) {
	c := f.campaign()
	p, err := s.Marketing.PreviewCampaign(r.Context(), a, c)
	if err != nil {
		return previewView{}, err
	}
	b, err := s.consoleBusiness(r, a)
	if err != nil {
		return previewView{}, err
	}
	out := previewView{Channels: len(c.Channels) > 0, Segment: c.SegmentID != 0, From: b.Name,
		Email: p.Email, Text: p.Text, Push: p.Push}
	if p.Sample.ID != "" {
		out.Sample = p.Sample.Label()
	}
	for _, u := range p.Unknown {
		out.Unknown = append(out.Unknown, "{{"+u+"}}")
	}
	if p.Text != nil {
		out.TextSize = textSize(p.Text.Body)
	}
	return out, nil
}

// textSize says how long a text message is, and in how many parts a
// phone receives it (160 characters in one, 153 a part beyond; 70 and 67
// when a character is outside the GSM alphabet's common part).
func textSize(body string) string {
	n := utf8.RuneCountInString(body)
	one, part := 160, 153
	for _, r := range body {
		if r > 0x7e || r == '`' {
			one, part = 70, 67
			break
		}
	}
	parts := 1
	if n > one {
		parts = (n + part - 1) / part
	}
	out := strconv.Itoa(n) + " characters, "
	if parts == 1 {
		return out + "1 message"
	}
	return out + strconv.Itoa(parts) + " messages"
}
