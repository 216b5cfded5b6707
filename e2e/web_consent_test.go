package e2e

import (
	"net/http"
	"net/url"
	"testing"
)

// TestConsoleRecordsConsent: the customer's page says what they agree to
// hear; the staff member records what the customer says, which the API's
// consent records show as made at the console by that person, after the
// member's own choice from the app; recording the same again records
// nothing.
func TestConsoleRecordsConsent(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		c := a.createCustomer(t, map[string]any{"email": "told@example.com", "first_name": "Tia"})
		owner := e.ownerConsole(t)
		owner.get(t, "/business/customers/"+c.ID).want(t, http.StatusOK).has(t, "Has not agreed to receive offers or news.")
		owner.post(t, "/business/customers/"+c.ID+"/consent", url.Values{"allow_email": {"on"}, "allow_push": {"on"}}).
			want(t, http.StatusSeeOther)
		owner.get(t, "/business/customers/"+c.ID).want(t, http.StatusOK).
			has(t, "Agrees to hear from you by e-mail, app notification.", "recorded by "+e.biz.Email)
		owner.post(t, "/business/customers/"+c.ID+"/consent", url.Values{"allow_email": {"on"}, "allow_push": {"on"}}).
			want(t, http.StatusSeeOther)
		var recs []consentView
		a.get(t, "/customers/"+c.ID+"/consents").want(t, http.StatusOK).data(t, &recs)
		if len(recs) != 1 || !recs[0].Email || recs[0].SMS || !recs[0].Push || recs[0].Source != "console" || recs[0].ChangedBy != e.biz.Email {
			t.Errorf("consent records %+v, want one from the console by the owner", recs)
		}
		owner.get(t, "/business/audit?action="+url.QueryEscape("customer.consent_changed")).want(t, http.StatusOK).has(t, "Tia", "Changed a customer")
	})
}
