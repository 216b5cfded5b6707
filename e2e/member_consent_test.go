package e2e

import (
	"net/http"
	"testing"
)

// choiceView is a member's choice in one business, as the user API shows it.
type choiceView struct {
	Business struct {
		ID string `json:"id"`
	} `json:"business"`
	Email     bool          `json:"allow_email"`
	SMS       bool          `json:"allow_sms"`
	Push      bool          `json:"allow_push"`
	UpdatedAt *string       `json:"updated_at"`
	History   []consentView `json:"history"`
}

// consentView is one recorded choice.
type consentView struct {
	ID        int64  `json:"id"`
	Email     bool   `json:"allow_email"`
	SMS       bool   `json:"allow_sms"`
	Push      bool   `json:"allow_push"`
	Source    string `json:"source"`
	ChangedBy string `json:"changed_by"`
}

// TestMemberConsents: a member's marketing consent starts at no and
// changes by channel from the app, each change a record of when, through
// what and by whom; the business reads the records and adds one from its
// app; refusals name their field; another business cannot read them. The
// notification preferences start at every channel and decide how the
// expiring-points notice goes: by e-mail, by text when e-mail is off, not
// at all when both are.
func TestMemberConsents(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		sb := e.sandboxBusiness(t)
		owner := e.owner(t, sb)
		app := e.userApp(t)
		u := e.register(t, sb.Key, map[string]any{"email": "choice@example.com", "phone": "514 555 0123", "country_code": "CA",
			"pin_code": 1357})
		member := e.asUser(t, app, sb.Key, "choice@example.com", "1357")

		var list []choiceView
		member.get(t, "/users/me/consents").want(t, http.StatusOK).data(t, &list)
		if len(list) != 1 || list[0].Business.ID != sb.ID || list[0].Email || list[0].SMS || list[0].Push ||
			list[0].UpdatedAt != nil || len(list[0].History) != 0 {
			t.Fatalf("consents before any choice %+v, want no to everything and no history", list)
		}
		var one choiceView
		member.do(t, http.MethodPatch, "/users/me/consents", map[string]any{"allow_email": true}).want(t, http.StatusOK).data(t, &one)
		if !one.Email || one.SMS || len(one.History) != 1 || one.History[0].Source != "app" || one.History[0].ChangedBy != u.ID {
			t.Fatalf("after saying yes to e-mail %+v", one)
		}
		member.do(t, http.MethodPatch, "/users/me/consents", map[string]any{"allow_email": true}).want(t, http.StatusOK).data(t, &one)
		if len(one.History) != 1 {
			t.Errorf("a change that changes nothing was recorded: %+v", one.History)
		}
		member.do(t, http.MethodPatch, "/users/me/consents", map[string]any{}).wantFields(t, "allow_email")
		member.do(t, http.MethodPatch, "/users/me/consents", map[string]any{"allow_sms": "yes"}).wantFields(t, "allow_sms")
		member.do(t, http.MethodPatch, "/users/me/consents", map[string]any{"allow_fax": true}).wantFields(t, "allow_fax")

		var recs []consentView
		owner.get(t, "/customers/"+u.ID+"/consents").want(t, http.StatusOK).data(t, &recs)
		if len(recs) != 1 || !recs[0].Email {
			t.Fatalf("the business reads %+v", recs)
		}
		owner.do(t, http.MethodPost, "/customers/"+u.ID+"/consents", map[string]any{"allow_email": false, "allow_sms": true}).
			wantFields(t, "allow_push")
		var rec consentView
		owner.do(t, http.MethodPost, "/customers/"+u.ID+"/consents", map[string]any{"allow_email": false, "allow_sms": true,
			"allow_push": false}).want(t, http.StatusOK).data(t, &rec)
		if rec.Email || !rec.SMS || rec.Source != "api" || rec.ChangedBy != "POS" {
			t.Errorf("the app's record %+v", rec)
		}
		owner.get(t, "/customers/"+u.ID+"/consents").want(t, http.StatusOK).data(t, &recs)
		if len(recs) != 2 || recs[0].ID != rec.ID || !recs[1].Email {
			t.Errorf("records after the app's %+v, want it first and the member's after", recs)
		}
		member.get(t, "/users/me/consents").want(t, http.StatusOK).data(t, &list)
		if list[0].Email || !list[0].SMS || len(list[0].History) != 2 {
			t.Errorf("the member sees %+v", list[0])
		}
		other := e.owner(t, e.newBusiness(t, "Elsewhere"))
		other.get(t, "/customers/"+u.ID+"/consents").wantError(t, http.StatusNotFound)
		other.do(t, http.MethodPost, "/customers/"+u.ID+"/consents", map[string]any{"allow_email": true, "allow_sms": true,
			"allow_push": true}).wantError(t, http.StatusNotFound)

		t.Run("notification preferences decide how a notice goes", func(t *testing.T) {
			member.get(t, "/users/me/notification-preferences").want(t, http.StatusOK).data(t, &list)
			if len(list) != 1 || !list[0].Email || !list[0].SMS || !list[0].Push {
				t.Fatalf("notification preferences before any choice %+v, want every channel", list)
			}
			owner.do(t, http.MethodPatch, "/rules", map[string]any{"points_expire_after": map[string]any{"months": 1},
				"expiry_notice_days": 7}).want(t, http.StatusOK)
			const phone = "+15145550123"
			// month rewards 10 points and moves two months on, past the
			// notice and the expiry; it returns the e-mails and texts the
			// member got meanwhile (the welcome ones came before).
			month := func() (mails, texts int) {
				m0, t0 := e.mailCount(t, "choice@example.com"), e.mailCount(t, phone)
				owner.reward(t, u.ID, 10)
				owner.moveClock(t, map[string]any{"advance": "P2M"})
				return e.mailCount(t, "choice@example.com") - m0, e.mailCount(t, phone) - t0
			}
			if m, x := month(); m != 1 || x != 0 {
				t.Fatalf("with every channel: %d e-mails, %d texts; want the notice by e-mail", m, x)
			}
			member.do(t, http.MethodPatch, "/users/me/notification-preferences", map[string]any{"allow_email": false}).
				want(t, http.StatusOK).data(t, &one)
			if one.Email || !one.SMS || len(one.History) != 1 {
				t.Fatalf("after e-mail off %+v", one)
			}
			if m, x := month(); m != 0 || x != 1 {
				t.Fatalf("with e-mail off: %d e-mails, %d texts; want the notice by text", m, x)
			}
			member.do(t, http.MethodPatch, "/users/me/notification-preferences", map[string]any{"allow_sms": false}).want(t, http.StatusOK)
			if m, x := month(); m != 0 || x != 0 {
				t.Errorf("with both off: %d e-mails, %d texts; want no notice", m, x)
			}
		})
	})
}
