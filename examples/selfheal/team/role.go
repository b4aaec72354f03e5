package team

// Role names a member of the team. Each role has its own model.
type Role string

const (
	RoleArchitect Role = "architect"
	RoleDeveloper Role = "developer"
	RoleDebugger  Role = "debugger"
	RoleReviewer  Role = "reviewer"
)

// Roles lists the roles that call a model, in pipeline order.
func Roles() []Role { return []Role{RoleArchitect, RoleDeveloper, RoleDebugger, RoleReviewer} }
