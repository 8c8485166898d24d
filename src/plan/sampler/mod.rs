//! What a sample is made of: each sampler kind's model, one file per protocol.
pub mod after;
pub mod http;
pub mod script;
pub mod socket;
pub mod synthetic;
pub mod websocket;
