package loyalty

import (
	"context"
	"time"
)

// The person behind a membership: kept in step with the customer, and
// unique by e-mail and phone.

// An e-mail or phone another person holds is not taken over.
func syncPerson(ctx context.Context, tx Tx, u User, now time.Time) error {
	n, claimed, err := tx.PersonReach(ctx, u.ID)
	if err != nil || n != 1 || claimed {
		return err
	}
	// An unclaimed person has no photo or other fields of their own to keep.
	p := u
	p.UpdatedAt = now
	if err := checkUnique(ctx, tx, User{}, p); err != nil {
		if ErrorCode(err) != EInvalid {
			return err
		}
		// Keep the person's identity; the business keeps its own record.
		return nil
	}
	return tx.UpdateUser(ctx, &p)
}

// checkUnique refuses an e-mail or phone that belongs to another person.
func checkUnique(ctx context.Context, tx Tx, old, u User) error {
	v := Validation{}
	if u.Email != "" && u.Email != old.Email {
		other, err := tx.UserByEmail(ctx, u.Email)
		if err == nil && other.ID != u.ID {
			v.Add("email", "The email has already been taken.")
		} else if err != nil && ErrorCode(err) != ENotFound {
			return err
		}
	}
	if u.Phone != "" && u.Phone != old.Phone {
		other, err := tx.UserByPhone(ctx, u.Phone)
		if err == nil && other.ID != u.ID {
			v.Add("phone", "The phone has already been taken.")
		} else if err != nil && ErrorCode(err) != ENotFound {
			return err
		}
	}
	return v.Err()
}
