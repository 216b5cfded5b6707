package loyalty

// ConsentJSON is one recorded choice as the APIs show it (the reference's
// consent record, with where and by whom it was made).
type ConsentJSON struct {
	ID        int64  `json:"id"`
	Email     bool   `json:"allow_email"`
	SMS       bool   `json:"allow_sms"`
	Push      bool   `json:"allow_push"`
	Source    string `json:"source"`
	ChangedBy string `json:"changed_by"`
	CreatedAt string `json:"created_at"`
}

// NewConsentJSON renders a record.
func NewConsentJSON(c Consent) ConsentJSON {
	return ConsentJSON{ID: c.ID, Email: c.Email, SMS: c.SMS, Push: c.Push, Source: c.Source, ChangedBy: c.By,
		CreatedAt: FormatTime(c.CreatedAt)}
}

// ConsentListJSON renders records, newest first.
func ConsentListJSON(list []Consent) []ConsentJSON {
	out := make([]ConsentJSON, len(list))
	for i, c := range list {
		out[i] = NewConsentJSON(c)
	}
	return out
}
