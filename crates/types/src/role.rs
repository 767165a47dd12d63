//! Who may do what in a merchant's account (API.md §11), shared by the domain, which checks
//! it, and the console, which shows only what a role may do.

/// A member's role in its merchant (API.md §11). Support staff have none: they see every
/// merchant and change nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Owner,
    Admin,
    Developer,
    Finance,
    Viewer,
}

/// What a role may do beyond seeing its merchant's data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    /// Capture and cancel orders.
    ManageOrders,
    /// Create payouts, and approve or reject another member's.
    CreatePayouts,
    /// Manage webhook endpoints and API keys.
    ManageIntegrations,
    /// Invite, change and remove members.
    ManageTeam,
    /// Set the approval thresholds of payouts.
    ManageThresholds,
    /// See the audit log and export it.
    SeeAuditLog,
}

impl TryFrom<String> for Role {
    type Error = String;

    fn try_from(role: String) -> Result<Self, String> {
        Self::parse(&role).ok_or_else(|| format!("unknown role {role}"))
    }
}

impl Permission {
    pub const ALL: [Permission; 6] = [
        Permission::ManageOrders,
        Permission::CreatePayouts,
        Permission::ManageIntegrations,
        Permission::ManageTeam,
        Permission::ManageThresholds,
        Permission::SeeAuditLog,
    ];
}

impl Role {
    pub const ALL: [Role; 5] = [
        Role::Owner,
        Role::Admin,
        Role::Developer,
        Role::Finance,
        Role::Viewer,
    ];

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|role| role.as_str() == text)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Owner => "owner",
            Role::Admin => "admin",
            Role::Developer => "developer",
            Role::Finance => "finance",
            Role::Viewer => "viewer",
        }
    }

    /// The table of API.md §11.
    pub fn may(self, permission: Permission) -> bool {
        use Role::*;
        match permission {
            Permission::ManageOrders | Permission::CreatePayouts => {
                matches!(self, Owner | Admin | Finance)
            }
            Permission::ManageIntegrations => matches!(self, Owner | Admin | Developer),
            Permission::ManageTeam | Permission::ManageThresholds | Permission::SeeAuditLog => {
                matches!(self, Owner | Admin)
            }
        }
    }

    /// Whether this role may do everything `other` may: a key bounded by `other` has no more
    /// power than this role's member (API.md §11: a key makes or rolls only keys with no more
    /// access than its own).
    pub fn covers(self, other: Role) -> bool {
        Permission::ALL
            .into_iter()
            .all(|permission| !other.may(permission) || self.may(permission))
    }

    /// Whether this role may change anything at all: a viewer only sees, and so do its keys.
    pub fn changes_anything(self) -> bool {
        Permission::ALL
            .into_iter()
            .any(|permission| self.may(permission))
    }

    /// Whether this role may invite `other`, give it, or change or remove a member who has it:
    /// owners manage everyone, admins everyone but owners.
    pub fn manages(self, other: Role) -> bool {
        self.may(Permission::ManageTeam) && (self == Role::Owner || other != Role::Owner)
    }
}

#[cfg(test)]
mod tests {
    use super::Role::{self, *};

    #[test]
    fn a_role_covers_the_roles_whose_rights_it_has_all_of() {
        for role in Role::ALL {
            assert!(Owner.covers(role) && role.covers(Viewer) && role.covers(role));
        }
        assert!(!Developer.covers(Finance) && !Finance.covers(Developer));
        assert!(!Finance.covers(Admin) && !Viewer.covers(Developer));
        assert_eq!(
            Role::ALL.map(Role::changes_anything),
            [true, true, true, true, false]
        );
    }
}
