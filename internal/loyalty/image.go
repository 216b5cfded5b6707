package loyalty

// Image is a picture of an offer, reward or gift card.
type Image struct {
	Default bool   `json:"default"`
	Path    string `json:"path"`
}
