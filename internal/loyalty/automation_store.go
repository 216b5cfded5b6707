package loyalty

import (
	"context"
	"time"
)

// AutomationStore reads automations and their runs.
type AutomationStore interface {
	Automations(ctx context.Context, businessID string, q ListQuery) ([]Automation, int, error)
	// Automation returns one automation of a business, or ENotFound.
	Automation(ctx context.Context, businessID string, id int64) (Automation, error)
	// EnabledAutomations lists every business's enabled automations.
	EnabledAutomations(ctx context.Context) ([]Automation, error)
	// DueRuns lists up to limit runs of an automation in state waiting
	// whose DueAt is at or before at.
	DueRuns(ctx context.Context, automationID int64, waiting string, at time.Time, limit int) ([]AutomationRun, error)
	// RunCounts counts an automation's runs by state.
	RunCounts(ctx context.Context, automationID int64) (map[string]int, error)
}

// AutomationTx writes automations and their runs.
type AutomationTx interface {
	InsertAutomation(ctx context.Context, a *Automation) error
	// UpdateAutomation writes every field of a.
	UpdateAutomation(ctx context.Context, a *Automation) error
	DeleteAutomation(ctx context.Context, businessID string, id int64) error
	// StartRun records a run; false when the automation has one of the
	// key for the customer already.
	StartRun(ctx context.Context, r AutomationRun) (bool, error)
	// SetRunOccurred writes r.Occurred on the customer's run of the
	// automation under r.Key.
	SetRunOccurred(ctx context.Context, r AutomationRun) error
	// LastRunStarted is when the customer's latest run of the automation
	// began; zero for none.
	LastRunStarted(ctx context.Context, automationID int64, customerID string) (time.Time, error)
	// AdvanceRun writes a run's step, state and due time if it is still at
	// step from in state waiting; false when another run moved it.
	AdvanceRun(ctx context.Context, r AutomationRun, from int, waiting string) (bool, error)
	// AddCustomerTag gives a customer a tag, if it has not got it.
	AddCustomerTag(ctx context.Context, businessID, customerID, tag string) error
}
