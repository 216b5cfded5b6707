package e2e

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/loyalty/loyalty/client"
)

// TestWebhookEndpoints drives the endpoints API through the SDK: the
// secret is shown once (at creation) in the whsec_ form and stored sealed,
// never in clear; reads and lists leave it out; an update changes only the
// fields sent; unknown event types and unsafe URLs are 422 naming the
// field; another business sees none of it; delete removes the endpoint.
func TestWebhookEndpoints(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		ctx := context.Background()
		api := e.sdkOwner(t)

		created, err := api.CreateWebhookWithResponse(ctx, sdk.WebhookWrite{Url: ptr("https://203.0.113.7/hooks"),
			EventTypes: &[]string{"customer.created", "transaction.created", "customer.created"}, Description: ptr("CRM")})
		if err != nil || created.JSON201 == nil {
			t.Fatalf("create: %v %d %s", err, created.StatusCode(), created.Body)
		}
		w := created.JSON201.Data
		raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(w.Secret, "whsec_"))
		if !strings.HasPrefix(w.Secret, "whsec_") || err != nil || len(raw) < 24 {
			t.Fatalf("secret %q: want whsec_ and the base64 of 24 or more bytes", w.Secret)
		}
		if !w.Enabled || len(w.EventTypes) != 2 || w.Description != "CRM" || w.DisabledReason != nil || w.PreviousSecretExpiresAt != nil {
			t.Errorf("created %+v", w)
		}
		if _, err := sdk.NewWebhookVerifier(w.Secret); err != nil {
			t.Errorf("the SDK's verifier refuses the secret: %v", err)
		}

		got := e.owner(t, e.biz).get(t, "/webhooks/"+w.Id).want(t, http.StatusOK)
		list := e.owner(t, e.biz).get(t, "/webhooks").want(t, http.StatusOK)
		for _, body := range [][]byte{got.Body, list.Body} {
			if strings.Contains(string(body), "secret\"") || strings.Contains(string(body), w.Secret) {
				t.Errorf("a read shows the secret: %s", body)
			}
		}
		var stored string
		if err := e.app.DB.SQL().QueryRow(`SELECT secret FROM webhook_endpoints WHERE id = $1`, w.Id).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(stored, w.Secret) || strings.Contains(stored, strings.TrimPrefix(w.Secret, "whsec_")) || stored == "" {
			t.Errorf("the secret is stored in clear: %q", stored)
		}

		upd, err := api.UpdateWebhookWithResponse(ctx, w.Id, sdk.WebhookWrite{Enabled: ptr(false)})
		if err != nil || upd.JSON200 == nil {
			t.Fatalf("update: %v %s", err, upd.Body)
		}
		if u := upd.JSON200.Data; u.Enabled || u.Url != w.Url || len(u.EventTypes) != 2 || u.Description != "CRM" {
			t.Errorf("after disabling: %+v", u)
		}
		a := e.owner(t, e.biz)
		a.do(t, http.MethodPut, "/webhooks/"+w.Id, map[string]any{"event_types": nil, "enabled": true}).want(t, http.StatusOK)
		if g, _ := api.GetWebhookWithResponse(ctx, w.Id); g.JSON200 == nil || len(g.JSON200.Data.EventTypes) != 0 || !g.JSON200.Data.Enabled {
			t.Errorf("null event_types (every type), enabled: %s", g.Body)
		}

		// Bad input, each 422 naming its field.
		a.do(t, http.MethodPost, "/webhooks", map[string]any{"url": "https://203.0.113.7/", "event_types": []string{"points.teleported"}}).
			wantFields(t, "event_types")
		a.do(t, http.MethodPut, "/webhooks/"+w.Id, map[string]any{"event_types": []string{"nope"}}).wantFields(t, "event_types")
		a.do(t, http.MethodPost, "/webhooks", map[string]any{}).wantFields(t, "url")
		a.do(t, http.MethodPost, "/webhooks", map[string]any{"url": "http://203.0.113.7/"}).wantFields(t, "url")
		a.do(t, http.MethodPost, "/webhooks", map[string]any{"url": "https://user:pw@203.0.113.7/"}).wantFields(t, "url")
		a.do(t, http.MethodPost, "/webhooks", map[string]any{"url": "ftp://203.0.113.7/"}).wantFields(t, "url")
		a.do(t, http.MethodPost, "/webhooks", map[string]any{"url": "https://203.0.113.7/", "enabled": "yes"}).wantFields(t, "enabled")
		a.do(t, http.MethodPost, "/webhooks/"+w.Id+"/rotate-secret", map[string]any{"overlap_seconds": -1}).wantFields(t, "overlap_seconds")
		a.get(t, "/webhooks/not-an-id").want(t, http.StatusBadRequest)
		a.get(t, "/webhooks/"+strings.Repeat("0", 32)).want(t, http.StatusNotFound)

		// Tenant isolation: another business neither sees nor changes it.
		other := e.owner(t, e.newBusiness(t, "Other"))
		other.get(t, "/webhooks/"+w.Id).want(t, http.StatusNotFound)
		other.do(t, http.MethodPut, "/webhooks/"+w.Id, map[string]any{"enabled": false}).want(t, http.StatusNotFound)
		other.do(t, http.MethodPost, "/webhooks/"+w.Id+"/rotate-secret", nil).want(t, http.StatusNotFound)
		other.get(t, "/webhooks/"+w.Id+"/deliveries").want(t, http.StatusNotFound)
		other.do(t, http.MethodDelete, "/webhooks/"+w.Id, nil).want(t, http.StatusNotFound)
		var theirs struct {
			Data []map[string]any `json:"data"`
		}
		other.get(t, "/webhooks").want(t, http.StatusOK).decode(t, &theirs)
		if len(theirs.Data) != 0 {
			t.Errorf("another business lists %v", theirs.Data)
		}

		ls, err := api.ListWebhooksWithResponse(ctx, nil)
		if err != nil || ls.JSON200 == nil || len(ls.JSON200.Data) != 1 || ls.JSON200.Meta.Total != 1 {
			t.Fatalf("list: %v %s", err, ls.Body)
		}
		if del, err := api.DeleteWebhookWithResponse(ctx, w.Id); err != nil || del.StatusCode() != http.StatusNoContent {
			t.Fatalf("delete: %v %d", err, del.StatusCode())
		}
		a.get(t, "/webhooks/"+w.Id).want(t, http.StatusNotFound)
	})
}

// TestWebhookTargetsRefused: without --webhooks-allow-private, URLs whose
// host is or resolves to the service's own network are 422 naming url,
// on create and on update.
func TestWebhookTargetsRefused(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		for _, host := range []string{"127.0.0.1", "127.8.9.10", "localhost", "[::1]", "10.1.2.3", "172.16.0.9", "192.168.1.1",
			"169.254.169.254", "[fe80::1]", "[fc00::1]", "[fd12::1]", "0.0.0.0", "[::]", "224.0.0.1", "100.64.0.1", "100.127.255.254",
			"[::ffff:127.0.0.1]", "[::ffff:169.254.169.254]"} {
			r := a.do(t, http.MethodPost, "/webhooks", map[string]any{"url": "https://" + host + "/hook"})
			if r.Status != http.StatusUnprocessableEntity || r.fields(t)["url"] == nil {
				t.Errorf("https://%s: %d %s, want 422 naming url", host, r.Status, r.Body)
			}
		}
		ok := a.do(t, http.MethodPost, "/webhooks", map[string]any{"url": "https://100.128.0.1/hook"}).want(t, http.StatusCreated).obj(t)
		id := str(ok["data"].(map[string]any)["id"])
		a.do(t, http.MethodPut, "/webhooks/"+id, map[string]any{"url": "https://169.254.169.254/latest/meta-data"}).wantFields(t, "url")
	})
}

func ptr[T any](v T) *T { return &v }
