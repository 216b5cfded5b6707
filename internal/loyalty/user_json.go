package loyalty

// UserJSON is a user on the wire (spec 2.8): the person's own record.
type UserJSON struct {
	ID           string  `json:"id"`
	Username     *string `json:"username"`
	FirstName    *string `json:"first_name"`
	LastName     *string `json:"last_name"`
	Email        *string `json:"email"`
	Phone        *string `json:"phone"`
	CountryCode  *string `json:"country_code"`
	Language     *string `json:"language"`
	Gender       *string `json:"gender"`
	BirthDate    *string `json:"birth_date"`
	ProfilePhoto *string `json:"profile_photo"`
	CreatedAt    string  `json:"created_at"`
	UpdatedAt    string  `json:"updated_at"`
}

// NewUserJSON is the person p on the wire.
func NewUserJSON(p Person) UserJSON {
	username := p.Email
	if username == "" {
		username = p.Phone
	}
	return UserJSON{ID: p.ID, Username: Nullable(username), FirstName: Nullable(p.FirstName), LastName: Nullable(p.LastName),
		Email: Nullable(p.Email), Phone: Nullable(p.Phone), CountryCode: Nullable(p.CountryCode),
		Language: Nullable(p.Language), Gender: Nullable(p.Gender), BirthDate: Nullable(p.BirthDate),
		ProfilePhoto: Nullable(p.ProfilePhoto), CreatedAt: FormatTime(p.CreatedAt), UpdatedAt: FormatTime(p.UpdatedAt)}
}
