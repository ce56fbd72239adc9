//! The Hexforge mod portal (docs/PORTAL.md): modders publish mod archives with a per-author
//! token, a version never overwritten; players search mods, read their versions, dependencies
//! and armies, and download them with their dependencies. The store is an SQLite database with
//! the archives as files beside it; the server speaks a small HTTP/1.1 over the standard
//! library's TCP and renders its pages itself; the client is what `hexforge mods` uses.

#![warn(missing_docs)]

pub mod client;
pub mod error;
pub mod http;
pub mod pages;
pub mod server;
pub mod store;
pub mod tls;

pub use client::{Portal, plan};
pub use error::PortalError;
pub use store::{ArmyCard, Dep, ModDetail, ModSummary, Published, Store, TileCard, VersionInfo};
