//! Unit tests of whole games on a small hand-made army.
