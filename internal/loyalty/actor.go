package loyalty

import "slices"

// Kinds of account that sign in to the web portals; a password reset or
// an audit entry names its account by kind and id.
const (
	AccountOwner     = "owner"     // a business's owner (the owners table)
	AccountStaff     = "staff"     // a member of a business's staff
	AccountDeveloper = "developer" // a third-party developer
	AccountSupport   = "support"   // the service's support staff
)

// Roles in the merchant console. The owner account is the business's
// owner; staff are managers or cashiers.
const (
	RoleOwner   = "owner"
	RoleManager = "manager"
	RoleCashier = "cashier"
)

// StaffRoles are the roles a staff member may have.
var StaffRoles = []string{RoleManager, RoleCashier}

// Permission is a part of the console a role may use.
type Permission string

// Permissions of the console's pages and actions.
const (
	PermCounter Permission = "counter" // the counter page and customer look-up
	PermManage  Permission = "manage"  // the business profile, the audit log and the program
	PermKeys    Permission = "keys"    // the Application Key and the connected apps
	PermStaff   Permission = "staff"   // inviting staff, their roles, removing them
)

// rolePermissions is what each role may use: the owner everything, a
// manager everything but keys, apps and staff, a cashier the counter.
var rolePermissions = map[string][]Permission{
	RoleOwner:   {PermCounter, PermManage, PermKeys, PermStaff},
	RoleManager: {PermCounter, PermManage},
	RoleCashier: {PermCounter},
}

// Actor is who acts in the console: a business's owner or a member of its
// staff, with the role that decides what they may do.
type Actor struct {
	Kind       string // AccountOwner or AccountStaff
	ID         string
	BusinessID string
	Email      string
	Role       string
}

// Can reports whether the actor's role allows p.
func (a Actor) Can(p Permission) bool {
	return slices.Contains(rolePermissions[a.Role], p)
}

// Require returns EForbidden unless the actor's role allows p.
func (a Actor) Require(p Permission) error {
	if a.Can(p) {
		return nil
	}
	return Errorf(EForbidden, "Your role (%s) does not give access to this page or action.", a.Role)
}
