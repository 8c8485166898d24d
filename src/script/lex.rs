//! Script text to tokens (STUB: the parser's author fills this in).
