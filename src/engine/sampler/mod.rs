//! The samplers: each kind's step makes a sample (an HTTP request, a script's, a made-up one, a
//! raw socket's, a WebSocket exchange, an access log's entry), then finishes it.

mod accesslog;
mod after;
mod http;
mod script;
mod socket;
mod synthetic;
mod websocket;

pub(super) use http::off_the_worker;
pub(super) use socket::Sockets;
pub(super) use websocket::WsConn;
