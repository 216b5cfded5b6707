package loyalty

// CustomerJSON is a customer on the wire (spec 2.3).
type CustomerJSON struct {
	ID        string        `json:"id"`
	FirstName *string       `json:"first_name"`
	LastName  *string       `json:"last_name"`
	Email     *string       `json:"email"`
	Phone     *string       `json:"phone"`
	BirthDate *string       `json:"birth_date"`
	Language  *string       `json:"language"`
	Gender    *string       `json:"gender"`
	Enabled   bool          `json:"enabled"`
	CreatedAt string        `json:"created_at"`
	UpdatedAt string        `json:"updated_at"`
	Balance   *BalanceJSON  `json:"balance,omitempty"`
	Address   *Address      `json:"address,omitempty"`
	UserType  *userTypeJSON `json:"user_type,omitempty"`
}

type userTypeJSON struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// NewCustomerJSON is c on the wire, with its balance when asked and the
// relationships rel names (address, user_type).
func NewCustomerJSON(c Customer, withBalance bool, rel map[string]bool) CustomerJSON {
	out := CustomerJSON{
		ID: c.ID, FirstName: Nullable(c.FirstName), LastName: Nullable(c.LastName), Email: Nullable(c.Email),
		Phone: Nullable(c.Phone), BirthDate: Nullable(c.BirthDate), Language: Nullable(c.Language),
		Gender: Nullable(c.Gender), Enabled: c.Enabled,
		CreatedAt: FormatTime(c.CreatedAt), UpdatedAt: FormatTime(c.UpdatedAt),
	}
	if withBalance {
		out.Balance = NewBalanceJSON(c.Balance)
	}
	if rel["address"] {
		a := c.Address
		out.Address = &a
	}
	if rel["user_type"] {
		out.UserType = &userTypeJSON{ID: "customer", Name: "Customer"}
	}
	return out
}
