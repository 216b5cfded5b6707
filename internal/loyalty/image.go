package loyalty

// Image is a picture of an offer, reward or gift card. It is given either
// as one path or, as the reference platform uploads them, in four sizes
// (original, large, medium, thumbnail); path is then the original.
type Image struct {
	Default   bool   `json:"default"`
	Path      string `json:"path"`
	Original  string `json:"original,omitempty"`
	Large     string `json:"large,omitempty"`
	Medium    string `json:"medium,omitempty"`
	Thumbnail string `json:"thumbnail,omitempty"`
}
