//! The headless Chromium harness itself (`util::browser`): a clean page is seen as clean, and a
//! broken one is seen as broken (console errors, exceptions, requests that leave the file).
//! Each test returns early, after a loud SKIPPED message, when there is no browser and no CI.

use std::fs;
use std::time::Instant;

use crate::util::browser::Browser;
use crate::util::stampede::TempRun;

const CLEAN: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>clean</title>
<style>body { font: 14px sans-serif; } .bar { fill: #4a7; }</style></head>
<body><h1>Clean</h1>
<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100" viewBox="0 0 200 100">
  <rect class="bar" x="10" y="10" width="180" height="80"/>
</svg>
<script>document.title = "clean, scripted";</script>
</body></html>
"#;

// Loopback only, port 9 (discard): the request fails at once and never leaves the machine.
const MISSING_IMAGE: &str = "http://127.0.0.1:9/missing.png";

const BROKEN: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>broken</title></head>
<body><h1>Broken</h1>
<img src="http://127.0.0.1:9/missing.png" alt="missing">
<script>console.error('boom');</script>
<script>throw new Error('bang');</script>
</body></html>
"#;

#[test]
fn a_clean_self_contained_page_shows_nothing_wrong() {
    let started = Instant::now();
    let Some(mut browser) = Browser::launch() else { return };
    let launched = started.elapsed();
    let dir = TempRun::new("browser-clean");
    let html = dir.write("clean.html", CLEAN);
    let mut page = browser.open(&html);
    eprintln!("{}: launch {launched:?}, launch + load {:?}", browser.product, started.elapsed());

    assert_eq!(page.errors(), Vec::<String>::new(), "errors on a clean page");
    assert_eq!(page.requests(), Vec::<String>::new(), "requests from a self-contained page");
    assert_eq!(page.eval("document.querySelectorAll('svg').length"), 1);
    assert_eq!(page.eval("document.title"), "clean, scripted");
    // The window is 1366x900; the page gets its width (and the height less the window's frame).
    assert_eq!(page.eval("window.innerWidth"), 1366);

    let png = dir.root().join("clean.png");
    page.screenshot(&png);
    let bytes = fs::read(&png).unwrap();
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG: {:?}", &bytes[..bytes.len().min(16)]);

    let pdf = page.pdf();
    assert!(pdf.starts_with(b"%PDF"), "not a PDF: {:?}", &pdf[..pdf.len().min(16)]);
    assert_eq!(page.errors(), Vec::<String>::new(), "errors after screenshot and print");
}

#[test]
fn console_errors_exceptions_and_outside_requests_are_seen() {
    let Some(mut browser) = Browser::launch() else { return };
    let dir = TempRun::new("browser-broken");
    let html = dir.write("broken.html", BROKEN);
    let mut page = browser.open(&html);

    let errors = page.errors();
    assert!(errors.iter().any(|e| e.contains("boom")), "console.error not seen: {errors:#?}");
    assert!(errors.iter().any(|e| e.contains("bang")), "uncaught exception not seen: {errors:#?}");
    assert_eq!(page.requests(), vec![MISSING_IMAGE.to_owned()]);

    // Errors that happen after the load are collected too.
    page.eval("console.warn('late'); setTimeout(() => { throw new Error('later'); }, 0); 1");
    page.eval("new Promise(resolve => setTimeout(resolve, 50))");
    let errors = page.errors();
    assert!(errors.iter().any(|e| e.contains("late")), "console.warn after load not seen: {errors:#?}");
    assert!(errors.iter().any(|e| e.contains("later")), "exception after load not seen: {errors:#?}");
}
