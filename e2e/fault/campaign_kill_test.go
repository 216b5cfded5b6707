package fault

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/mail"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestCampaignSurvivesSIGKILL sends a campaign with a points gift to a
// segment of 300 members with the real binary, at a rate slow enough
// that sending takes seconds, kills the instance with SIGKILL mid-send
// and starts it again: on PostgreSQL two instances sharing the database,
// on SQLite one. Every recipient whose consent allows it and who is not
// in the holdout gets exactly one e-mail (one outbox message, one file of
// the file sender) and the gift exactly once on the ledger; nobody else
// gets either; the report adds up to the segment.
func TestCampaignSurvivesSIGKILL(t *testing.T) {
	bin := testenv.BuildLoyalty(t)
	for _, engine := range testenv.Engines() {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			killMidCampaign(t, bin, engine)
		})
	}
}

// campaignMembers is the size of the campaign's segment; campaignRate
// the recipients reached a second (about 8 s for the ~240 reached).
const (
	campaignMembers = 300
	campaignRate    = "30"
	campaignGift    = 7
	campaignSubject = "A gift after the crash"
)

func killMidCampaign(t *testing.T, bin, engine string) {
	dsn := testenv.DSN(t, engine)
	dataDir := t.TempDir()
	cli := func(args ...string) map[string]any {
		t.Helper()
		return testenv.RunJSON(t, bin, append(append([]string{"--db", dsn, "--data-dir", dataDir}, args...), "--json")...)
	}
	cli("migrate")
	owner, password := "owner@campaign-crash.example", "crash-pass-2026"
	biz := cli("admin", "business", "create", "--name", "Crash Cafe", "--loyalty-type", "per_spend",
		"--owner-email", owner, "--owner-password", password)
	app := cli("admin", "app", "create", "--name", "Till", "--api", "business", "--grant", "password", "--approve")
	key := str(biz["application_key"])
	args := []string{"--db", dsn, "--data-dir", dataDir, "--campaign-rate", campaignRate}

	// The members, made through the domain's services before the service
	// starts (as many through the API would meet its rate limits): nine in
	// ten agree to e-mail.
	consenting := map[string]bool{} // e-mail addresses
	emails := map[string]string{}   // customer id -> e-mail
	seedMembers(t, dsn, str(biz["business_id"]), emails, consenting)

	proc, base := startKillable(t, bin, args...)
	hc := &http.Client{Timeout: 10 * time.Second}
	tok := ownerToken(t, hc, base, app, key, owner, password)
	till := testenv.Till{Key: key}
	api := func(base, method, path string, body any, out any) int {
		t.Helper()
		return do(t, hc, till.Request(base, tok.AccessToken, method, path, body, ""), out)
	}

	var seg, campaign struct{ Data struct{ ID int64 } }
	if s := api(base, http.MethodPost, "/segments", map[string]any{"name": "Everyone"}, &seg); s != http.StatusCreated {
		t.Fatalf("segment: %d", s)
	}
	if s := api(base, http.MethodPost, "/campaigns", map[string]any{"name": "Crash", "segment_id": seg.Data.ID, "channels": []string{"email"},
		"subject": campaignSubject, "email_body": "Hello {{first_name}}, here are " + strconv.Itoa(campaignGift) + " points.",
		"gift": map[string]any{"points": campaignGift}, "holdout_percent": 10}, &campaign); s != http.StatusCreated {
		t.Fatalf("campaign: %d", s)
	}
	id := strconv.FormatInt(campaign.Data.ID, 10)
	if s := api(base, http.MethodPost, "/campaigns/"+id+"/send", map[string]any{}, nil); s != http.StatusOK {
		t.Fatalf("send: %d", s)
	}
	type report struct {
		Data struct {
			State     string         `json:"state"`
			Outcomes  map[string]int `json:"outcomes"`
			Delivered int            `json:"delivered"`
			Gifts     int            `json:"gifts"`
		}
	}
	var rep report
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		rep = report{}
		api(base, http.MethodGet, "/campaigns/"+id+"/report", nil, &rep)
		if rep.Data.Outcomes["sent"] >= 40 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s sending: %+v", rep.Data)
		}
	}
	proc.Process.Signal(syscall.SIGKILL)
	proc.Wait()
	killedAt := time.Now()

	store, err := sqlstore.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	db := store.SQL()
	outcomes := func() map[string]int {
		t.Helper()
		rows, err := db.Query(`SELECT outcome, COUNT(*) FROM campaign_recipients WHERE campaign_id = $1 GROUP BY outcome`, campaign.Data.ID)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]int{}
		for rows.Next() {
			var o string
			var n int
			if err := rows.Scan(&o, &n); err != nil {
				t.Fatal(err)
			}
			out[o] = n
		}
		return out
	}
	atKill := outcomes()
	t.Logf("killed with outcomes %v", atKill)
	if atKill["pending"] == 0 {
		t.Fatalf("the campaign was done when the instance was killed (%v): not a kill mid-send", atKill)
	}

	// Start again: two instances on PostgreSQL, which share the work.
	_, base = startKillable(t, bin, args...)
	if engine == sqlstore.Postgres {
		startKillable(t, bin, args...)
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		rep = report{}
		api(base, http.MethodGet, "/campaigns/"+id+"/report", nil, &rep)
		if rep.Data.State == "sent" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("60 s after the restart the campaign is %+v", rep.Data)
		}
	}
	t.Logf("sent %.1f s after the kill: %v", time.Since(killedAt).Seconds(), rep.Data.Outcomes)

	// Who was reached, as recorded; every member is drawn once.
	reached, holdout, refused := map[string]bool{}, map[string]bool{}, map[string]bool{}
	rows, err := db.Query(`SELECT customer_id, outcome FROM campaign_recipients WHERE campaign_id = $1`, campaign.Data.ID)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		var cid, outcome string
		if err := rows.Scan(&cid, &outcome); err != nil {
			t.Fatal(err)
		}
		n++
		switch email := emails[cid]; outcome {
		case "sent":
			reached[email] = true
		case "holdout":
			holdout[email] = true
		case "no_consent":
			refused[email] = true
		default:
			t.Errorf("%s: outcome %s", email, outcome)
		}
	}
	rows.Close()
	if n != campaignMembers || len(holdout) == 0 {
		t.Fatalf("%d recipients drawn (%d in the holdout), want the %d members", n, len(holdout), campaignMembers)
	}
	for email := range consenting {
		if !reached[email] && !holdout[email] {
			t.Errorf("%s agreed to e-mail and is not in the holdout, but was not reached", email)
		}
	}
	for email := range reached {
		if !consenting[email] {
			t.Errorf("%s was reached without consent", email)
		}
	}
	for email := range refused {
		if consenting[email] {
			t.Errorf("%s agreed to e-mail but was refused", email)
		}
	}

	// One message each in the outbox, and in the files the sender wrote.
	msgs := map[string]int{}
	rows, err = db.Query(`SELECT recipient FROM outbox WHERE subject = $1`, campaignSubject)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var to string
		if err := rows.Scan(&to); err != nil {
			t.Fatal(err)
		}
		msgs[to]++
	}
	rows.Close()
	for email := range reached {
		if msgs[email] != 1 {
			t.Errorf("%s has %d messages in the outbox, want 1", email, msgs[email])
		}
	}
	if len(msgs) != len(reached) {
		t.Errorf("%d addresses have a message, %d recipients were reached", len(msgs), len(reached))
	}
	// A message the killed instance had claimed goes again when its lease
	// (2 minutes) ends; the file sender names a file after its message,
	// so a message written twice is still one file.
	var files map[string][]string
	for deadline := time.Now().Add(150 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		files = mailFiles(t, filepath.Join(dataDir, "outbox"), campaignSubject)
		if len(files) >= len(reached) || time.Now().After(deadline) {
			break
		}
	}
	for email := range reached {
		if len(files[email]) != 1 {
			t.Errorf("%s got %d e-mails %v, want 1", email, len(files[email]), files[email])
		}
	}
	for email := range files {
		if !reached[email] {
			t.Errorf("%s got the campaign's e-mail but was not reached", email)
		}
	}

	// The gift: once on the ledger for each recipient reached, for nobody else.
	gifts := map[string]int64{}
	entries := map[string]int{}
	rows, err = db.Query(`SELECT customer_id, points FROM transactions WHERE business_id = $1 AND intent = $2`,
		str(biz["business_id"]), "adjust_points_balance")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var cid string
		var p int64
		if err := rows.Scan(&cid, &p); err != nil {
			t.Fatal(err)
		}
		gifts[emails[cid]] += p
		entries[emails[cid]]++
	}
	rows.Close()
	for email := range reached {
		if entries[email] != 1 || gifts[email] != campaignGift {
			t.Errorf("%s has %d gift entries of %d points, want one of %d", email, entries[email], gifts[email], campaignGift)
		}
	}
	if len(entries) != len(reached) {
		t.Errorf("%d customers have a gift, %d were reached", len(entries), len(reached))
	}
	var linked int
	if err := db.QueryRow(`SELECT COUNT(DISTINCT gift_entry_id) FROM campaign_recipients WHERE campaign_id = $1 AND outcome = 'sent'`,
		campaign.Data.ID).Scan(&linked); err != nil {
		t.Fatal(err)
	}
	if linked != len(reached) {
		t.Errorf("%d recipients reached name their gift's entry, want all %d", linked, len(reached))
	}

	// The report adds up.
	var delivered int
	if err := db.QueryRow(`SELECT COUNT(*) FROM outbox WHERE subject = $1 AND status = 'sent'`, campaignSubject).Scan(&delivered); err != nil {
		t.Fatal(err)
	}
	api(base, http.MethodGet, "/campaigns/"+id+"/report", nil, &rep)
	o := rep.Data.Outcomes
	if o["sent"] != len(reached) || o["holdout"] != len(holdout) || o["no_consent"] != len(refused) ||
		o["sent"]+o["holdout"]+o["no_consent"] != campaignMembers || rep.Data.Gifts != len(reached) || rep.Data.Delivered != delivered ||
		delivered > len(reached) {
		t.Errorf("report %+v; want %d sent, %d holdout, %d no_consent, %d gifts, %d delivered", rep.Data, len(reached), len(holdout),
			len(refused), len(reached), delivered)
	}
}

// seedMembers makes the campaign's members in the business of the
// database of dsn, through the domain's services: nine in ten agree to
// e-mail (consenting, by address); emails maps each id to its address.
func seedMembers(t *testing.T, dsn, businessID string, emails map[string]string, consenting map[string]bool) {
	t.Helper()
	ctx := context.Background()
	store, err := sqlstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	b, err := store.Business(ctx, businessID)
	if err != nil {
		t.Fatal(err)
	}
	customers := &loyalty.CustomerService{Store: store}
	consents := &loyalty.ConsentService{Store: store}
	for i := range campaignMembers {
		email := fmt.Sprintf("m%03d@campaign-crash.example", i)
		c, err := customers.Create(ctx, b, loyalty.CustomerInput{Email: loyalty.Some(email), FirstName: loyalty.Some("M" + strconv.Itoa(i))})
		if err != nil {
			t.Fatal(err)
		}
		yes := i%10 != 0
		if _, err := consents.Change(ctx, b, c.ID, loyalty.ConsentMarketing, loyalty.ConsentInput{Email: loyalty.Some(yes),
			SMS: loyalty.Some(false), Push: loyalty.Some(false)}, "app", "", true); err != nil {
			t.Fatal(err)
		}
		emails[c.ID] = email
		if yes {
			consenting[email] = true
		}
	}
}

// mailFiles reads the e-mails the file sender wrote to dir with the
// subject: their file names by recipient.
func mailFiles(t *testing.T, dir, subject string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	names, err := filepath.Glob(filepath.Join(dir, "*.eml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		m, err := mail.ReadMessage(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m.Header.Get("Subject") == subject {
			to := m.Header.Get("To")
			out[to] = append(out[to], filepath.Base(name))
			slices.Sort(out[to])
		}
	}
	return out
}
