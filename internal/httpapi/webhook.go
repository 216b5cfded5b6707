package httpapi

import (
	"net/http"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// webhookJSON is a webhook endpoint. Secret is shown only in the replies
// that create it (creation, rotation).
type webhookJSON struct {
	ID                      string   `json:"id"`
	URL                     string   `json:"url"`
	Description             string   `json:"description"`
	EventTypes              []string `json:"event_types"`
	Enabled                 bool     `json:"enabled"`
	DisabledReason          *string  `json:"disabled_reason"`
	FailingSince            *string  `json:"failing_since"`
	PreviousSecretExpiresAt *string  `json:"previous_secret_expires_at"`
	CreatedAt               string   `json:"created_at"`
	UpdatedAt               string   `json:"updated_at"`
	Secret                  string   `json:"secret,omitempty"`
}

func toWebhookJSON(w loyalty.WebhookEndpoint, withSecret bool) webhookJSON {
	out := webhookJSON{ID: w.ID, URL: w.URL, Description: w.Description, EventTypes: idsOrEmpty(w.EventTypes),
		Enabled: w.Enabled, FailingSince: loyalty.OptTime(w.FailingSince), CreatedAt: loyalty.FormatTime(w.CreatedAt),
		UpdatedAt: loyalty.FormatTime(w.UpdatedAt)}
	if w.DisabledReason != "" {
		out.DisabledReason = &w.DisabledReason
	}
	if w.PreviousSecret != "" {
		out.PreviousSecretExpiresAt = loyalty.OptTime(w.PreviousSecretUntil)
	}
	if withSecret {
		out.Secret = w.Secret
	}
	return out
}

// deliveryJSON is one entry of an endpoint's delivery log.
type deliveryJSON struct {
	EventID       string  `json:"event_id"`
	EventType     string  `json:"event_type"`
	Sequence      int64   `json:"sequence"`
	State         string  `json:"state"`
	Attempts      int     `json:"attempts"`
	LastStatus    *int    `json:"last_status"`
	LastLatencyMS *int64  `json:"last_latency_ms"`
	LastResponse  *string `json:"last_response"`
	LastError     *string `json:"last_error"`
	LastAttemptAt *string `json:"last_attempt_at"`
	NextAttemptAt *string `json:"next_attempt_at"`
	CreatedAt     string  `json:"created_at"`
}

func toDeliveryJSON(x loyalty.WebhookDelivery) deliveryJSON {
	out := deliveryJSON{EventID: x.EventID, EventType: x.EventType, Sequence: x.Seq, State: x.State, Attempts: x.Attempts,
		LastAttemptAt: loyalty.OptTime(x.LastAttemptAt), NextAttemptAt: loyalty.OptTime(x.NextAttemptAt),
		CreatedAt: loyalty.FormatTime(x.CreatedAt)}
	if !x.LastAttemptAt.IsZero() {
		ms := x.LastLatency.Milliseconds()
		out.LastLatencyMS = &ms
	}
	if x.LastStatus != 0 {
		out.LastStatus, out.LastResponse = &x.LastStatus, &x.LastResponse
	}
	if x.LastError != "" {
		out.LastError = &x.LastError
	}
	return out
}

func (s *Server) listWebhooks(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	q := r.URL.Query()
	lq, err := loyalty.ParseListQuery(q, loyalty.WebhookListSpec)
	if err != nil {
		return err
	}
	list, total, err := rc.svc.Webhooks.List(r.Context(), tenant(rc), lq)
	if err != nil {
		return err
	}
	data := make([]webhookJSON, len(list))
	for i, e := range list {
		data[i] = toWebhookJSON(e, false)
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "cursor": cursorOf("webhooks", q, lq, len(list), total),
		"meta": map[string]int{"total": total}})
	return nil
}

func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.WebhookInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	e, err := auditedOf(s, r, rc, loyalty.AuditWebhookCreated, named("Webhook", in.URL, ""), func(svc loyalty.Services) (loyalty.WebhookEndpoint, error) {
		return svc.Webhooks.Create(r.Context(), tenant(rc), in)
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]any{"data": toWebhookJSON(e, true)})
	return nil
}

func (s *Server) getWebhook(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	e, err := rc.svc.Webhooks.Get(r.Context(), tenant(rc), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toWebhookJSON(e, false)})
	return nil
}

func (s *Server) updateWebhook(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.WebhookInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	e, err := auditedOf(s, r, rc, loyalty.AuditWebhookUpdated, namedOrRead("Webhook", in.URL, r.PathValue("id"), s.webhookURL(r, rc)), func(svc loyalty.Services) (loyalty.WebhookEndpoint, error) {
		return svc.Webhooks.Update(r.Context(), tenant(rc), r.PathValue("id"), in)
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toWebhookJSON(e, false)})
	return nil
}

func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if err := s.audited(r, rc, loyalty.AuditWebhookDeleted, named("Webhook", nameOf(s.webhookURL(r, rc)), r.PathValue("id")), func(svc loyalty.Services) error {
		return svc.Webhooks.Delete(r.Context(), tenant(rc), r.PathValue("id"))
	}); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) rotateWebhookSecret(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.RotateInput
	if r.ContentLength != 0 {
		if err := decodeBody(r, &in); err != nil {
			return err
		}
	}
	e, err := auditedOf(s, r, rc, loyalty.AuditWebhookRotated, namedOrRead("Webhook", loyalty.Opt[string]{}, r.PathValue("id"), s.webhookURL(r, rc)), func(svc loyalty.Services) (loyalty.WebhookEndpoint, error) {
		return svc.Webhooks.RotateSecret(r.Context(), tenant(rc), r.PathValue("id"), in)
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toWebhookJSON(e, true)})
	return nil
}

func (s *Server) listWebhookDeliveries(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	q := r.URL.Query()
	lq, err := loyalty.ParseListQuery(q, loyalty.DeliveryListSpec)
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	list, total, err := rc.svc.Webhooks.Deliveries(r.Context(), tenant(rc), id, lq)
	if err != nil {
		return err
	}
	data := make([]deliveryJSON, len(list))
	for i, x := range list {
		data[i] = toDeliveryJSON(x)
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "cursor": cursorOf("webhooks/"+id+"/deliveries", q, lq, len(list), total),
		"meta": map[string]int{"total": total}})
	return nil
}

func (s *Server) retryWebhookDelivery(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	x, err := rc.svc.Webhooks.Retry(r.Context(), tenant(rc), r.PathValue("id"), r.PathValue("event_id"))
	if err != nil {
		return err
	}
	if s.WakeWebhooks != nil {
		s.WakeWebhooks()
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"data": toDeliveryJSON(x)})
	return nil
}

// webhookURL reads the URL of the endpoint the path names, which names it
// in the audit log.
func (s *Server) webhookURL(r *http.Request, rc *reqCtx) func() (string, error) {
	return func() (string, error) {
		h, err := rc.svc.Webhooks.Get(r.Context(), tenant(rc), r.PathValue("id"))
		return h.URL, err
	}
}
