package e2e

import (
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// referralProgramJSON is a referral program as the API shows it.
type referralProgramJSON struct {
	ID                  int64   `json:"id"`
	RuleName            string  `json:"rule_name"`
	CondMinAmount       float64 `json:"cond_min_amount"`
	RefereeEarns        int64   `json:"referee_earns"`
	RefererEarns        int64   `json:"referer_earns"`
	ExpiresIn           int64   `json:"expires_in"`
	Enabled             bool    `json:"enabled"`
	LinkReferralEnabled bool    `json:"link_referral_enabled"`
	ReferralLink        *string `json:"referral_link"`
}

// programOf decodes a `{data: referral program}` body.
func (r *result) programOf(t *testing.T) referralProgramJSON {
	t.Helper()
	var out struct{ Data referralProgramJSON }
	r.want(t, http.StatusOK).decode(t, &out)
	return out.Data
}

// enabledProgramIDs returns the ids of the enabled programs of GET /referral-programs.
func (c *client) enabledProgramIDs(t *testing.T) []int64 {
	t.Helper()
	var out struct{ Data []referralProgramJSON }
	c.get(t, "/referral-programs").want(t, http.StatusOK).decode(t, &out)
	var ids []int64
	for _, p := range out.Data {
		if p.Enabled {
			ids = append(ids, p.ID)
		}
	}
	return ids
}

func programPath(id int64) string { return "/referral-programs/" + strconv.FormatInt(id, 10) }

func TestReferralPrograms(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		b := e.owner(t, e.newBusiness(t, "Bakery Two"))
		body := map[string]any{"cond_min_amount": 30.5, "referee_earns": 50, "referer_earns": 10, "expires_in": 35}

		if ids := a.enabledProgramIDs(t); len(ids) != 0 {
			t.Fatalf("a new business has programs %v", ids)
		}
		first := a.do(t, http.MethodPost, "/referral-programs", body).programOf(t)
		want := referralProgramJSON{ID: first.ID, RuleName: "REFERRAL_RULES_PURCHASE", CondMinAmount: 30.5, RefereeEarns: 50,
			RefererEarns: 10, ExpiresIn: 35, Enabled: true, LinkReferralEnabled: true}
		if first.ID == 0 || first != want {
			t.Fatalf("created %+v, want %+v", first, want)
		}
		if got := a.get(t, programPath(first.ID)).programOf(t); got != want {
			t.Errorf("read back %+v", got)
		}

		t.Run("one enabled at a time", func(t *testing.T) {
			second := a.do(t, http.MethodPost, "/referral-programs", body).programOf(t)
			off := map[string]any{"enabled": false, "rule_name": "Spare", "cond_min_amount": 0, "referee_earns": 0, "referer_earns": 0, "expires_in": 0}
			spare := a.do(t, http.MethodPost, "/referral-programs", off).programOf(t)
			if ids := a.enabledProgramIDs(t); !slices.Equal(ids, []int64{second.ID}) {
				t.Errorf("enabled %v, want only the newest enabled %d", ids, second.ID)
			}
			up := a.do(t, http.MethodPut, programPath(spare.ID), map[string]any{"enabled": true, "link_referral_enabled": false, "referer_earns": 75}).programOf(t)
			if !up.Enabled || up.LinkReferralEnabled || up.RefererEarns != 75 || up.RuleName != "Spare" || up.ExpiresIn != 0 {
				t.Errorf("updated %+v", up)
			}
			if ids := a.enabledProgramIDs(t); !slices.Equal(ids, []int64{spare.ID}) {
				t.Errorf("enabled %v, want only %d after enabling it", ids, spare.ID)
			}
			a.do(t, http.MethodPut, programPath(first.ID), map[string]any{"enabled": true}).programOf(t)
		})

		t.Run("validation", func(t *testing.T) {
			post := func(body any) *result {
				t.Helper()
				return a.do(t, http.MethodPost, "/referral-programs", body)
			}
			post(map[string]any{}).wantFields(t, "cond_min_amount", "referee_earns", "referer_earns", "expires_in")
			post(map[string]any{"cond_min_amount": -1, "referee_earns": -5, "referer_earns": 1e12, "expires_in": 4000, "rule_name": " "}).
				wantFields(t, "cond_min_amount", "referee_earns", "referer_earns", "expires_in", "rule_name")
			post(map[string]any{"cond_min_amount": 1, "referee_earns": 1, "referer_earns": 1, "expires_in": 1, "enabled": "yes"}).wantFields(t, "enabled")
			post(map[string]any{"cond_min_amount": 1, "referee_earns": 1.5, "referer_earns": 1, "expires_in": 1}).wantFields(t, "referee_earns")
			post(`{"cond_min_amount": 1.234, "referee_earns": 1, "referer_earns": 1, "expires_in": 1}`).wantFields(t, "cond_min_amount")
			post(`[`).wantError(t, http.StatusBadRequest)
			a.do(t, http.MethodPut, programPath(first.ID), map[string]any{"link_referral_enabled": nil}).wantFields(t, "link_referral_enabled")
			if ids := a.enabledProgramIDs(t); !slices.Equal(ids, []int64{first.ID}) {
				t.Errorf("refused requests changed the programs: enabled %v", ids)
			}
		})

		t.Run("not found, bad ids, other businesses", func(t *testing.T) {
			a.get(t, "/referral-programs/999999").wantError(t, http.StatusNotFound, "Referral program")
			a.do(t, http.MethodPut, "/referral-programs/999999", map[string]any{"enabled": true}).wantError(t, http.StatusNotFound)
			a.get(t, "/referral-programs/x1").wantError(t, http.StatusBadRequest)
			b.get(t, programPath(first.ID)).wantError(t, http.StatusNotFound)
			b.do(t, http.MethodPut, programPath(first.ID), map[string]any{"enabled": false}).wantError(t, http.StatusNotFound)
			if ids := b.enabledProgramIDs(t); len(ids) != 0 {
				t.Errorf("another business lists %v", ids)
			}
			b.do(t, http.MethodPost, "/referral-programs", body).programOf(t)
			if ids := a.enabledProgramIDs(t); !slices.Equal(ids, []int64{first.ID}) {
				t.Errorf("another business's program disabled ours: enabled %v", ids)
			}
		})
	})
}

// refPointsOf reads a customer's points balance.
func (c *client) refPointsOf(t *testing.T, id string) int64 {
	t.Helper()
	got := c.get(t, "/customers/"+id+"?include=balance").want(t, http.StatusOK).customer(t)
	p, _ := got.Balance["points"].(float64)
	return int64(p)
}

// TestReferralFlow: a customer created with a referral is linked; the
// referee's first reward of at least cond_min_amount within expires_in
// days pays both sides exactly once.
func TestReferralFlow(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		prog := a.do(t, http.MethodPost, "/referral-programs", map[string]any{"cond_min_amount": 20, "referee_earns": 50,
			"referer_earns": 100, "expires_in": 30}).programOf(t)
		referrer := a.createCustomer(t, map[string]any{"email": "referrer@x.example"})
		refer := func(email string, programID int64, referrerID string) *result {
			t.Helper()
			return a.do(t, http.MethodPost, "/customers", map[string]any{"email": email,
				"referral": map[string]any{"referral_program_id": programID, "referrer_id": referrerID}})
		}
		reward := func(id string, amount float64) map[string]any {
			t.Helper()
			return a.tierTransact(t, map[string]any{"intent": "reward", "amount": amount, "customer": map[string]any{"id": id}})
		}
		balance := func(tx map[string]any) float64 {
			bal, _ := tx["balance"].(map[string]any)
			p, _ := bal["points"].(float64)
			return p
		}

		referee := refer("referee@x.example", prog.ID, referrer.ID).want(t, http.StatusOK).customer(t)
		t.Run("pays once, on the first qualifying reward", func(t *testing.T) {
			if got := balance(reward(referee.ID, 19.99)); got != 19 || a.refPointsOf(t, referrer.ID) != 0 {
				t.Errorf("below the minimum: referee %v, referrer %d; want 19 and 0", got, a.refPointsOf(t, referrer.ID))
			}
			if got := balance(reward(referee.ID, 20)); got != 19+20+50 || a.refPointsOf(t, referrer.ID) != 100 {
				t.Errorf("qualifying reward: referee %v (want 89), referrer %d (want 100)", got, a.refPointsOf(t, referrer.ID))
			}
			if got := balance(reward(referee.ID, 80)); got != 89+80 || a.refPointsOf(t, referrer.ID) != 100 {
				t.Errorf("second qualifying reward paid again: referee %v, referrer %d", got, a.refPointsOf(t, referrer.ID))
			}
			var list struct {
				Data []struct {
					TransactionType int   `json:"transaction_type"`
					Points          int64 `json:"points"`
				} `json:"data"`
			}
			a.get(t, "/customers/"+referrer.ID+"/transactions").want(t, http.StatusOK).decode(t, &list)
			if len(list.Data) != 1 || list.Data[0].TransactionType != 77 || list.Data[0].Points != 100 {
				t.Errorf("referrer's ledger %+v, want one referral entry of 100 points", list.Data)
			}
		})

		t.Run("concurrent qualifying rewards pay once", func(t *testing.T) {
			racer := refer("racer@x.example", prog.ID, referrer.ID).want(t, http.StatusOK).customer(t)
			var wg sync.WaitGroup
			statuses := make(chan int, 6)
			for range 6 {
				req := a.request(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "amount": 20,
					"customer": map[string]any{"id": racer.ID}})
				wg.Go(func() {
					// Only the test's goroutine may stop the test: report the status.
					resp, err := e.http.Do(req)
					if err != nil {
						statuses <- 0
						return
					}
					resp.Body.Close()
					statuses <- resp.StatusCode
				})
			}
			wg.Wait()
			close(statuses)
			for s := range statuses {
				if s != http.StatusOK {
					t.Errorf("a concurrent reward answered %d", s)
				}
			}
			if got, ref := a.refPointsOf(t, racer.ID), a.refPointsOf(t, referrer.ID); got != 6*20+50 || ref != 200 {
				t.Errorf("referee %d (want 170), referrer %d (want 200)", got, ref)
			}
		})

		t.Run("refusals", func(t *testing.T) {
			// A person is referred once: leaving and coming back with
			// another referral is refused.
			a.do(t, http.MethodDelete, "/customers/"+referee.ID, nil).want(t, http.StatusNoContent)
			refer("referee@x.example", prog.ID, referrer.ID).wantFields(t, "referral")
			// Nobody refers themselves.
			self := a.createCustomer(t, map[string]any{"email": "self@x.example"})
			a.do(t, http.MethodDelete, "/customers/"+self.ID, nil).want(t, http.StatusNoContent)
			refer("self@x.example", prog.ID, self.ID).wantFields(t, "referral.referrer_id")
			// The program must be enabled.
			a.do(t, http.MethodPut, programPath(prog.ID), map[string]any{"enabled": false}).programOf(t)
			refer("late-comer@x.example", prog.ID, referrer.ID).wantFields(t, "referral.referral_program_id")
			a.do(t, http.MethodPut, programPath(prog.ID), map[string]any{"enabled": true}).programOf(t)
			if l := a.list(t, "email=eq|late-comer@x.example"); len(l.Data) != 0 {
				t.Errorf("a refused referral created %v", l.ids())
			}
		})

		t.Run("nothing is paid after expires_in days", func(t *testing.T) {
			slow := refer("slow@x.example", prog.ID, referrer.ID).want(t, http.StatusOK).customer(t)
			e.db.Advance(30*24*time.Hour + time.Minute)
			if got := balance(reward(slow.ID, 25)); got != 25 || a.refPointsOf(t, referrer.ID) != 200 {
				t.Errorf("after expiry: referee %v, referrer %d; want 25 and 200", got, a.refPointsOf(t, referrer.ID))
			}
		})
	})
}
