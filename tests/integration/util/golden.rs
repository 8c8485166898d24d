//! Golden files: rendered output compared with `tests/golden/<dir>/<name>`, rewritten instead
//! when `UPDATE_GOLDEN` is set (`UPDATE_GOLDEN=1 ./test.sh report compare`) after a deliberate
//! change, which the diff then shows.

use std::path::Path;

#[track_caller]
pub fn check(dir: &str, name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(dir).join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_GOLDEN=1 writes it)", path.display()));
    assert_eq!(actual, expected, "{} differs (UPDATE_GOLDEN=1 rewrites it after a deliberate change)", path.display());
}
