//! Who a tab belongs to ([`TabOwner`]) and who is calling a tool ([`Actor`]).
//!
//! Every tab has an owner: the person at the pane (tabs opened from a pane, and every tab a
//! browser had before agents existed) or one agent. Agents see and touch only their own tabs;
//! the owner token acts as the agent named `owner` and sees every tab. Pure data: the session
//! applies these rules around its CDP calls.

/// The owner of a tab.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TabOwner {
    /// The person at the pane.
    Human,
    /// An agent (the owner token acts as the agent `owner`).
    Agent { id: String, name: String },
}

/// The `owner` value panes see for a human tab.
pub const HUMAN: &str = "human";
/// The agent id the owner token acts as.
pub const OWNER_AGENT: &str = "owner";

impl TabOwner {
    /// `"human"` or the agent's id.
    pub fn id(&self) -> &str {
        match self {
            TabOwner::Human => HUMAN,
            TabOwner::Agent { id, .. } => id,
        }
    }

    /// A name for a person: `human` or the agent's name.
    pub fn name(&self) -> &str {
        match self {
            TabOwner::Human => HUMAN,
            TabOwner::Agent { name, .. } => name,
        }
    }

    /// How a refusal names this owner.
    pub fn described(&self) -> String {
        match self {
            TabOwner::Human => "the person at the browser pane".to_string(),
            TabOwner::Agent { id, name } => format!("agent {name:?} ({id})"),
        }
    }
}

/// Who runs a tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Actor {
    /// The owner token: sees every tab and acts on the tab the panes show.
    Owner,
    /// An agent: its own tabs only, opened for it on its first action.
    Agent { id: String, name: String },
}

impl Actor {
    /// The agent id this actor goes by (`owner` for the owner token).
    pub fn id(&self) -> &str {
        match self {
            Actor::Owner => OWNER_AGENT,
            Actor::Agent { id, .. } => id,
        }
    }

    /// The agent's name (`owner` for the owner token).
    pub fn name(&self) -> &str {
        match self {
            Actor::Owner => OWNER_AGENT,
            Actor::Agent { name, .. } => name,
        }
    }

    /// The owner recorded on tabs this actor opens.
    pub fn as_owner(&self) -> TabOwner {
        TabOwner::Agent {
            id: self.id().to_string(),
            name: self.name().to_string(),
        }
    }

    /// True when this actor may see and touch a tab of `owner`.
    pub fn may_touch(&self, owner: &TabOwner) -> bool {
        match self {
            Actor::Owner => true,
            Actor::Agent { id, .. } => owner.id() == id,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_touch_only_their_own_tabs_and_the_owner_touches_all() {
        let a = Actor::Agent {
            id: "a1".into(),
            name: "alpha".into(),
        };
        let b = Actor::Agent {
            id: "b2".into(),
            name: "beta".into(),
        };
        assert!(a.may_touch(&a.as_owner()));
        assert!(!a.may_touch(&b.as_owner()));
        assert!(!a.may_touch(&TabOwner::Human));
        assert!(Actor::Owner.may_touch(&TabOwner::Human));
        assert!(Actor::Owner.may_touch(&b.as_owner()));
        assert_eq!(Actor::Owner.as_owner().id(), "owner");
        assert!(b.as_owner().described().contains("beta"));
    }
}
