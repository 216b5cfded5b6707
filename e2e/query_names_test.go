package e2e

import (
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestQueryNamesPHP (issue 11 item 8): include and relationships lists in
// PHP's forms (what http_build_query writes, and the SDK's README example)
// mean the same as the comma-separated form, on single reads and lists.
func TestQueryNamesPHP(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		c := a.createCustomer(t, map[string]any{"email": "php@x.example"})
		mainBranch := a.catList(t, "/branches").Data[0]["id"]
		a.tierTransact(t, map[string]any{"intent": "reward", "points": 7, "customer": map[string]any{"id": c.ID},
			"branch": map[string]any{"id": mainBranch}})
		path := "/customers/" + c.ID

		// Single read: the balance comes back under included and on data.
		for _, q := range []string{"include=balance", "include[]=balance", "include%5B%5D=balance", "include[0]=balance", "include%5B0%5D=balance"} {
			var out struct {
				Data     customer `json:"data"`
				Included struct {
					Balance map[string]any `json:"balance"`
				} `json:"included"`
			}
			a.get(t, path+"?"+q).want(t, http.StatusOK).decode(t, &out)
			if out.Included.Balance["points"] != 7.0 || out.Data.Balance["points"] != 7.0 {
				t.Errorf("%s: balance %v / %v, want 7 points", q, out.Included.Balance, out.Data.Balance)
			}
		}
		inc := a.get(t, path+"?include[]=balance&include[]=tier_level&relationships[]=address").want(t, http.StatusOK).obj(t)
		included, _ := inc["included"].(map[string]any)
		data, _ := inc["data"].(map[string]any)
		if _, ok := included["tier_level"]; !ok || included["balance"] == nil || data["address"] == nil {
			t.Errorf("include[]=balance&include[]=tier_level&relationships[]=address: %v", inc)
		}

		// Lists: a balance on every customer.
		for _, q := range []string{"include[]=balance", "include%5B0%5D=balance", "include=balance"} {
			var list customerList
			a.get(t, "/customers?"+q).want(t, http.StatusOK).decode(t, &list)
			if len(list.Data) != 1 || list.Data[0].Balance["points"] != 7.0 {
				t.Errorf("/customers?%s: %+v", q, list.Data)
			}
		}
		var page struct {
			Data []map[string]any `json:"data"`
		}
		a.get(t, "/customers/"+c.ID+"/transactions?relationships[]=branch&relationships[]=transaction_details").want(t, http.StatusOK).decode(t, &page)
		if len(page.Data) != 1 {
			t.Fatalf("history: %v", page.Data)
		}
		if br, _ := page.Data[0]["branch"].(map[string]any); br["id"] != mainBranch {
			t.Errorf("history with relationships[]=branch: %v", page.Data)
		}
		if tr := a.do(t, http.MethodPost, "/tiers", map[string]any{"tier_levels": []any{tierLvl("A", 1, 0, 0)}}).tierOf(t); len(tr.TierLevels) != 1 {
			t.Fatalf("tier %+v", tr)
		}
		a.get(t, "/tiers?relationships[]=tier_levels").want(t, http.StatusOK)

		// Unknown names and malformed keys are refused by name, in any form.
		a.get(t, path+"?include[]=balance&include[]=wallet").wantError(t, http.StatusBadRequest, "wallet")
		a.get(t, "/customers?include%5B0%5D=wallet").wantError(t, http.StatusBadRequest, "wallet")
		a.get(t, "/customers?relationships[]=address").wantError(t, http.StatusBadRequest, "relationships")
		a.get(t, path+"?include[x]=balance").wantError(t, http.StatusBadRequest, "include[x]")
		a.get(t, path+"?include=balance&include=nope").wantError(t, http.StatusBadRequest, "nope")
	})
}

// TestMeIncludes (issue 11 item 8): GET /me answers the reference docs'
// PHP-style example and the sample app's include list.
func TestMeIncludes(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		a.catData(t, http.MethodPost, "/rewards", map[string]any{"kind": "catalog_item", "title": "Mug", "points": 90})

		// The reference docs' example.
		r := a.get(t, "/me?include[]=branches&include[]=products&include[]=offers").want(t, http.StatusOK).obj(t)
		inc, _ := r["included"].(map[string]any)
		if br, _ := inc["branches"].([]any); len(br) != 1 || inc["products"] == nil || inc["offers"] == nil || len(inc) != 3 {
			t.Errorf("include[]=branches&include[]=products&include[]=offers: %v", inc)
		}
		// The sample app's list.
		var app struct {
			Data struct {
				Business map[string]any `json:"business"`
			} `json:"data"`
			Included struct {
				Business struct {
					ID, Name    string
					LoyaltyType string `json:"loyalty_type"`
					Settings    struct {
						LoyaltyType string  `json:"loyalty_type"`
						CountryCode *string `json:"country_code"`
					} `json:"settings"`
				} `json:"business"`
				Settings     map[string]any   `json:"settings"`
				CatalogItems []map[string]any `json:"catalog_items"`
				SocialMedia  []any            `json:"social_media"`
			} `json:"included"`
		}
		a.get(t, "/me?include=settings,business,offers,giftcards,products,catalog_items,social_media").want(t, http.StatusOK).decode(t, &app)
		b := app.Included.Business
		if b.ID != e.biz.ID || b.Name != "Corner Cafe" || b.LoyaltyType != "per_spend" || b.Settings.LoyaltyType != "per_spend" ||
			b.Settings.CountryCode == nil || app.Included.Settings["loyalty_type"] != "per_spend" || len(app.Included.CatalogItems) != 1 ||
			app.Included.SocialMedia == nil {
			t.Errorf("the sample app's includes: %+v", app.Included)
		}
		// Alone, business carries its settings too (the sample app reads
		// business.settings.currency); the reference's names catalog and
		// social are catalog_items and social_media.
		r = a.get(t, "/me?include=business,catalog,social").want(t, http.StatusOK).obj(t)
		inc, _ = r["included"].(map[string]any)
		biz, _ := inc["business"].(map[string]any)
		cat, _ := inc["catalog"].([]any)
		if at(biz, "settings.currency.symbol") != "$" || biz["name"] != "Corner Cafe" || len(cat) != 1 || inc["social"] == nil {
			t.Errorf("include=business,catalog,social: %v", inc)
		}
		a.get(t, "/me?include[]=branches&include[]=analytics").wantError(t, http.StatusBadRequest, "analytics")
		a.get(t, "/me?relationships=branches").wantError(t, http.StatusBadRequest, "branches")
	})
}

// TestEveryReadRefusesUnknownNames (issue 11 item 8): no read of either
// API drops an include or relationships name silently. Every GET route of
// routes.go is listed here (the test fails on one it does not know), and
// each answers an unknown name, in every form, with a 400 naming it.
func TestEveryReadRefusesUnknownNames(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		c := a.createCustomer(t, map[string]any{"email": "audit@x.example"})
		offer := catID(a.catData(t, http.MethodPost, "/offers", map[string]any{"type_id": 3, "title": "Bonus", "points": 5}))
		reward := catID(a.catData(t, http.MethodPost, "/rewards", map[string]any{"kind": "catalog_item", "title": "Mug", "points": 90}))
		card := catID(a.catData(t, http.MethodPost, "/giftcards", map[string]any{"title": "Card", "discount_value": 25, "real_value": 20}))
		product := catID(a.catData(t, http.MethodPost, "/products", map[string]any{"title": "Scone", "product_sku": "SC-1"}))
		category := catID(a.catData(t, http.MethodPost, "/product-categories", map[string]any{"name": "Bakery"}))
		punchCard := catID(a.catData(t, http.MethodPost, "/punch-cards", map[string]any{"name": "Card", "stamps_required": 5,
			"reward_offer_id": catNum(a.catOffer(t, map[string]any{"type_id": 8, "title": "Free tea"}))}))
		earningRule := catID(a.catData(t, http.MethodPost, "/earning-rules", map[string]any{"name": "Bonus",
			"effect": map[string]any{"type": "bonus", "points": 5}}))
		tier := a.do(t, http.MethodPost, "/tiers", map[string]any{"tier_levels": []any{tierLvl("A", 1, 0, 0)}}).tierOf(t)
		prog := a.do(t, http.MethodPost, "/referral-programs", map[string]any{"cond_min_amount": 1, "referee_earns": 1,
			"referer_earns": 1, "expires_in": 30}).programOf(t)
		uv := e.register(t, e.biz.Key, map[string]any{"email": "audit.user@x.example", "pin_code": 2468})
		u := e.asUser(t, e.userApp(t), e.biz.Key, "audit.user@x.example", "2468")
		a.reward(t, uv.ID, 90)
		voucher := u.do(t, http.MethodPost, "/users/me/redemptions", map[string]any{"reward_id": atoi(t, reward)}).
			want(t, http.StatusOK).voucher(t)
		var upload struct{ Data importView }
		a.importUpload(t, [][2]string{{"type", "customers"}, {"file", "email\nimported@x.example\n"}}).want(t, http.StatusOK).decode(t, &upload)
		imp := "/imports/" + itoa64(upload.Data.ID)
		hook := a.do(t, http.MethodPost, "/webhooks", map[string]any{"url": "https://203.0.113.7/hooks"}).want(t, http.StatusCreated).obj(t)
		hookID := str(hook["data"].(map[string]any)["id"])
		var seg struct{ Data struct{ ID int64 } }
		a.do(t, http.MethodPost, "/segments", map[string]any{"name": "All"}).want(t, http.StatusCreated).decode(t, &seg)
		segment := "/segments/" + itoa64(seg.Data.ID)
		var camp struct{ Data struct{ ID int64 } }
		a.do(t, http.MethodPost, "/campaigns", map[string]any{"name": "Hello", "segment_id": seg.Data.ID, "subject": "Hi",
			"email_body": "Hello"}).want(t, http.StatusCreated).decode(t, &camp)
		campaign := "/campaigns/" + itoa64(camp.Data.ID)
		var auto struct{ Data struct{ ID int64 } }
		a.do(t, http.MethodPost, "/automations", map[string]any{"name": "Tag", "trigger": map[string]any{"type": "first_purchase"},
			"actions": []any{map[string]any{"type": "add_tag", "tag": "new"}}}).want(t, http.StatusCreated).decode(t, &auto)
		automation := "/automations/" + itoa64(auto.Data.ID)

		reads := map[string]struct {
			c    *client
			path string
		}{
			"/me":                                {a, "/me"},
			"/rules":                             {a, "/rules"},
			"/sandbox/clock":                     {a, "/sandbox/clock"},
			"/reports/points":                    {a, "/reports/points"},
			"/customers":                         {a, "/customers"},
			"/customers/{id}":                    {a, "/customers/" + c.ID},
			"/customers/{id}/transactions":       {a, "/customers/" + c.ID + "/transactions"},
			"/customers/{id}/points":             {a, "/customers/" + c.ID + "/points"},
			"/customers/{id}/offers":             {a, "/customers/" + c.ID + "/offers"},
			"/customers/{id}/available-coupons":  {a, "/customers/" + c.ID + "/available-coupons"},
			"/customers/{id}/targeted-offers":    {a, "/customers/" + c.ID + "/targeted-offers"},
			"/customers/{id}/claimable-offers":   {a, "/customers/" + c.ID + "/claimable-offers"},
			"/customers/{id}/rewards":            {a, "/customers/" + c.ID + "/rewards"},
			"/transactions":                      {a, "/transactions"},
			"/branches":                          {a, "/branches"},
			"/offers":                            {a, "/offers"},
			"/offers/{id}":                       {a, "/offers/" + offer},
			"/rewards":                           {a, "/rewards"},
			"/rewards/{id}":                      {a, "/rewards/" + reward},
			"/giftcards":                         {a, "/giftcards"},
			"/giftcards/{id}":                    {a, "/giftcards/" + card},
			"/products":                          {a, "/products"},
			"/products/{id}":                     {a, "/products/" + product},
			"/product-categories":                {a, "/product-categories"},
			"/earning-rules":                     {a, "/earning-rules"},
			"/punch-cards":                       {a, "/punch-cards"},
			"/punch-cards/{id}":                  {a, "/punch-cards/" + punchCard},
			"/earning-rules/{id}":                {a, "/earning-rules/" + earningRule},
			"/product-categories/{id}":           {a, "/product-categories/" + category},
			"/tiers":                             {a, "/tiers"},
			"/tiers/{id}":                        {a, tierPath(tier.ID)},
			"/referral-programs":                 {a, "/referral-programs"},
			"/referral-programs/{id}":            {a, programPath(prog.ID)},
			"/events":                            {a, "/events"},
			"/imports":                           {a, "/imports"},
			"/imports/{id}":                      {a, imp},
			"/imports/{id}/errors":               {a, imp + "/errors"},
			"/webhooks":                          {a, "/webhooks"},
			"/webhooks/{id}":                     {a, "/webhooks/" + hookID},
			"/webhooks/{id}/deliveries":          {a, "/webhooks/" + hookID + "/deliveries"},
			"/users":                             {u, "/users"},
			"/users/{user_id}":                   {u, "/users/me"},
			"/users/{user_id}/rewards":           {u, "/users/me/rewards"},
			"/users/{user_id}/offers":            {u, "/users/me/offers"},
			"/users/{user_id}/offers/{offer_id}": {u, "/users/me/offers/" + offer},
			"/users/{user_id}/giftcards":         {u, "/users/me/giftcards"},
			"/users/{user_id}/giftcards/{giftcard_id}":  {u, "/users/me/giftcards/" + card},
			"/users/{user_id}/businesses":               {u, "/users/me/businesses"},
			"/users/{user_id}/businesses/{business_id}": {u, "/users/me/businesses/" + e.biz.ID},
			"/users/{user_id}/preferences":              {u, "/users/me/preferences"},
			"/users/{user_id}/redemptions":              {u, "/users/me/redemptions"},
			"/users/{user_id}/consents":                 {u, "/users/me/consents"},
			"/users/{user_id}/export":                   {u, "/users/me/export"},
			"/users/{user_id}/transfers":                {u, "/users/me/transfers"},
			"/users/{user_id}/notification-preferences": {u, "/users/me/notification-preferences"},
			"/users/{user_id}/passes/apple":             {u, "/users/me/passes/apple"},
			"/users/{user_id}/passes/google":            {u, "/users/me/passes/google"},
			"/customers/{id}/consents":                  {a, "/customers/" + c.ID + "/consents"},
			"/vouchers/{code}":                          {a, "/vouchers/" + voucher.Code},
			"/customers/{id}/tags":                      {a, "/customers/" + c.ID + "/tags"},
			"/segments":                                 {a, "/segments"},
			"/segments/{id}":                            {a, segment},
			"/segments/{id}/customers":                  {a, segment + "/customers"},
			"/campaigns":                                {a, "/campaigns"},
			"/automations":                              {a, "/automations"},
			"/automations/{id}":                         {a, automation},
			"/campaigns/{id}":                           {a, campaign},
			"/campaigns/{id}/report":                    {a, campaign + "/report"},
		}
		// Routes that are not reads of either API: operations, OAuth, files.
		outside := []string{"/healthz", "/readyz", "/metrics", "/openapi.yaml", "/.well-known/oauth-authorization-server", "/images/{name}"}
		src, err := os.ReadFile("../internal/httpapi/routes.go")
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`"GET (/[^"]*)"`).FindAllStringSubmatch(string(src), -1) {
			if _, ok := reads[m[1]]; !ok && !slices.Contains(outside, m[1]) {
				t.Errorf("GET %s is not audited here: add it", m[1])
			}
		}

		for pattern, rd := range reads {
			for _, q := range []string{"include=nosuchname", "include[]=nosuchname", "include%5B0%5D=nosuchname",
				"relationships=nosuchname", "relationships[]=nosuchname"} {
				r := rd.c.get(t, rd.path+"?"+q)
				if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "nosuchname") {
					t.Errorf("GET %s (%s?%s): %d %s, want 400 naming nosuchname", pattern, rd.path, q, r.Status, r.Body)
				}
			}
			r := rd.c.get(t, rd.path+"?"+url.Values{"include[x]": {"balance"}}.Encode())
			if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "include[x]") {
				t.Errorf("GET %s?include[x]=balance: %d %s, want 400 naming include[x]", pattern, r.Status, r.Body)
			}
		}
		// The case, word for word.
		a.get(t, programPath(prog.ID)+"?include=analytics").wantError(t, http.StatusBadRequest, "analytics")
	})
}
