//! A toolbox whose tools change while it is in use: an agent picks up the
//! change at its next round, an MCP server tells its clients
//! (`notifications/tools/list_changed`).
//!
//! Readers take a [`snapshot`](SharedToolbox::snapshot): an `Arc<Toolbox>`
//! that no change touches, so a turn's calls run against one set of tools
//! however the set changes while they run. A change builds the next toolbox aside
//! and swaps it in whole, so no reader ever sees half of one.

use crate::toolbox::{Toolbox, ToolboxError};
use crate::Tool;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};

/// A [`Toolbox`] that many hold and any may change. Cheap to clone: the
/// clones are one toolbox.
///
/// ```
/// use std::sync::Arc;
/// use tool_runtime::{SharedToolbox, Toolbox};
/// # use serde_json::{json, Map, Value};
/// # use tool_runtime::{Invocation, Tool, ToolContext, ToolDefinition};
/// # struct Echo(ToolDefinition);
/// # impl Tool for Echo {
/// #     fn name(&self) -> &str { "echo" }
/// #     fn definition(&self) -> &ToolDefinition { &self.0 }
/// #     fn invoke(self: Arc<Self>, _: Map<String, Value>, _: ToolContext) -> Invocation {
/// #         Invocation::Blocking(Box::new(|| Ok("echo".into())))
/// #     }
/// # }
/// # let echo = Arc::new(Echo(ToolDefinition::from_json(&json!({"type": "function",
/// #     "function": {"name": "echo", "parameters": {"type": "object", "properties": {}}}})).unwrap()));
/// let tools = SharedToolbox::new(Toolbox::new());
/// let changes = Arc::new(std::sync::atomic::AtomicUsize::new(0));
/// let seen = changes.clone();
/// let _listening = tools.on_change(move |_| {
///     seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
/// });
///
/// let before = tools.snapshot();
/// tools.add(echo)?;
/// assert_eq!(before.len(), 0, "a snapshot does not change");
/// assert_eq!(tools.snapshot().names().collect::<Vec<_>>(), ["echo"]);
/// assert!(tools.remove("echo").is_some());
/// assert!(tools.remove("echo").is_none(), "nothing to remove, nothing changed");
/// assert_eq!(changes.load(std::sync::atomic::Ordering::SeqCst), 2);
/// # Ok::<(), tool_runtime::ToolboxError>(())
/// ```
#[derive(Clone)]
pub struct SharedToolbox {
    inner: Arc<Inner>,
}

struct Inner {
    /// The toolbox now, and its version.
    current: RwLock<(u64, Arc<Toolbox>)>,
    /// Changes are made one at a time, so none is lost to another.
    writing: Mutex<()>,
    listeners: Mutex<Vec<(u64, Listener)>>,
    next_listener: AtomicU64,
}

type Listener = Arc<dyn Fn(&Arc<Toolbox>) + Send + Sync>;

impl SharedToolbox {
    /// Shares `toolbox`.
    pub fn new(toolbox: Toolbox) -> SharedToolbox {
        SharedToolbox {
            inner: Arc::new(Inner {
                current: RwLock::new((0, Arc::new(toolbox))),
                writing: Mutex::new(()),
                listeners: Mutex::new(Vec::new()),
                next_listener: AtomicU64::new(0),
            }),
        }
    }

    /// The tools now. Later changes do not touch it.
    pub fn snapshot(&self) -> Arc<Toolbox> {
        read(&self.inner.current).1.clone()
    }

    /// How many changes have been made: a reader that kept the number
    /// knows whether its snapshot is still the toolbox.
    pub fn version(&self) -> u64 {
        read(&self.inner.current).0
    }

    /// The tools now and their version, read together.
    pub fn versioned(&self) -> (u64, Arc<Toolbox>) {
        let current = read(&self.inner.current);
        (current.0, current.1.clone())
    }

    /// Adds a tool; a name the toolbox has is
    /// [`ToolboxError::DuplicateName`], and nothing changes.
    pub fn add(&self, tool: Arc<dyn Tool>) -> Result<(), ToolboxError> {
        self.update(|toolbox| toolbox.add(tool))
    }

    /// Adds every tool of `other`, or, if one of its names is taken, none.
    pub fn merge(&self, other: Toolbox) -> Result<(), ToolboxError> {
        self.update(|toolbox| {
            for tool in other.tools {
                toolbox.add(tool)?;
            }
            Ok(())
        })
    }

    /// Takes the tool called `name` out; `None`, and no change, if there is
    /// none.
    pub fn remove(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.update(|toolbox| toolbox.remove(name).ok_or(())).ok()
    }

    /// Makes several changes as one: `change` edits a copy of the toolbox,
    /// which replaces it if `change` succeeds. Readers see all of the
    /// changes or none, and listeners hear of them once; an error leaves
    /// the toolbox as it was, unheard of.
    pub fn update<T, E>(&self, change: impl FnOnce(&mut Toolbox) -> Result<T, E>) -> Result<T, E> {
        let writing = lock(&self.inner.writing);
        let mut next = Toolbox::clone(&self.snapshot());
        let out = change(&mut next)?;
        let next = Arc::new(next);
        {
            let mut current = write(&self.inner.current);
            *current = (current.0 + 1, next.clone());
        }
        // Told in the order the changes were made, outside the lock the
        // readers take, so a listener may read the toolbox.
        let listeners: Vec<Listener> = lock(&self.inner.listeners)
            .iter()
            .map(|(_, l)| l.clone())
            .collect();
        for listener in listeners {
            listener(&next);
        }
        drop(writing);
        Ok(out)
    }

    /// A handle that does not keep the toolbox alive: for what the
    /// toolbox's own tools hold (an MCP connection keeping it in step).
    pub fn downgrade(&self) -> WeakToolbox {
        WeakToolbox(Arc::downgrade(&self.inner))
    }

    /// Calls `listener` with the new tools after each change, on the thread
    /// that made it, until the returned [`Subscription`] is dropped. A
    /// listener must not change the toolbox (it would wait for itself).
    pub fn on_change(
        &self,
        listener: impl Fn(&Arc<Toolbox>) + Send + Sync + 'static,
    ) -> Subscription {
        let id = self.inner.next_listener.fetch_add(1, Ordering::Relaxed);
        lock(&self.inner.listeners).push((id, Arc::new(listener)));
        Subscription {
            toolbox: Arc::downgrade(&self.inner),
            id,
        }
    }
}

impl From<Toolbox> for SharedToolbox {
    fn from(toolbox: Toolbox) -> SharedToolbox {
        SharedToolbox::new(toolbox)
    }
}

impl Default for SharedToolbox {
    fn default() -> SharedToolbox {
        SharedToolbox::new(Toolbox::new())
    }
}

impl fmt::Debug for SharedToolbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (version, toolbox) = self.versioned();
        f.debug_struct("SharedToolbox")
            .field("version", &version)
            .field("toolbox", &toolbox)
            .finish()
    }
}

/// A [`SharedToolbox`] held without keeping it alive
/// ([`SharedToolbox::downgrade`]).
#[derive(Clone, Default)]
pub struct WeakToolbox(Weak<Inner>);

impl WeakToolbox {
    /// The toolbox, if someone still holds it.
    pub fn upgrade(&self) -> Option<SharedToolbox> {
        self.0.upgrade().map(|inner| SharedToolbox { inner })
    }
}

impl fmt::Debug for WeakToolbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WeakToolbox")
    }
}

/// A listener of [`SharedToolbox::on_change`]; dropping it stops the calls.
#[must_use = "the listener stops when this is dropped"]
pub struct Subscription {
    toolbox: Weak<Inner>,
    id: u64,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        if let Some(inner) = self.toolbox.upgrade() {
            lock(&inner.listeners).retain(|(id, _)| *id != self.id);
        }
    }
}

impl fmt::Debug for Subscription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Subscription")
            .field("id", &self.id)
            .finish()
    }
}

// A listener that panicked poisons nothing worth refusing service for: the
// data behind each lock is whole between statements.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn read<T>(l: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    l.read().unwrap_or_else(|p| p.into_inner())
}

fn write<T>(l: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    l.write().unwrap_or_else(|p| p.into_inner())
}
