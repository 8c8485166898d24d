use crate::script::{Lang, NoHost, Script, Value};

fn eval(src: &str, lang: Lang) -> Result<Value, String> {
    let s = Script::compile(src, lang).map_err(|e| e.to_string())?;
    let mut host = NoHost::default();
    s.run(&mut host, &[]).map_err(|e| e.to_string())
}

#[test]
fn placeholder() {
    let _ = eval("1", Lang::Groovy);
}
