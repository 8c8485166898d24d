//! Objects of the classes a script declares: construction (Groovy's default, named-argument and
//! declared constructors), fields, properties through getters and setters, methods, `super`.

use super::eval::{self, R};
use super::{Class, Proto, Unit};
use crate::budget;
use crate::value::{lock, Native, Value};
use crate::{Ctx, Thrown};
use std::any::Any;
use std::sync::{Arc, Mutex, Weak};

/// The names of declared classes, kept for the life of the process: a value's class name is
/// `&'static str` (library classes' are literals). One copy per distinct name.
static NAMES: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());

pub(crate) fn intern(name: &str) -> &'static str {
    let mut names = lock(&NAMES);
    if let Some(n) = names.iter().find(|n| **n == name) {
        return n;
    }
    let n: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.push(n);
    n
}

/// An object of a declared class.
pub(crate) struct Obj {
    unit: Arc<Unit>,
    class: u32,
    fields: Mutex<Vec<Value>>,
    /// Itself, for `this` when a method is called through [`Native::call`].
    me: Weak<Obj>,
}

impl std::fmt::Debug for Obj {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.info().name)
    }
}

// A chain of objects (`class N { N next }`) far deeper than the stack would drop recursively:
// its fields are taken apart one level at a time, as lists and maps are (value.rs).
impl Drop for Obj {
    fn drop(&mut self) {
        let fields = std::mem::take(self.fields.get_mut().unwrap_or_else(|e| e.into_inner()));
        crate::value::drop_flat(fields);
    }
}

/// The fields of `o` taken out, when it is an object of a declared class held nowhere else
/// (so its drop will not recurse into them).
pub(crate) fn take_sole_fields(o: &Arc<dyn Native>) -> Option<Vec<Value>> {
    if Arc::strong_count(o) != 1 {
        return None;
    }
    let obj = o.as_any().downcast_ref::<Obj>()?;
    Some(std::mem::take(&mut *lock(&obj.fields)))
}

/// The object a value is, when it is one of a declared class.
pub(crate) fn of(v: &Value) -> Option<&Obj> {
    match v {
        Value::Object(o) => o.as_any().downcast_ref::<Obj>(),
        _ => None,
    }
}

impl Obj {
    fn info(&self) -> &Class {
        &self.unit.classes[self.class as usize]
    }

    fn value(&self) -> Value {
        match self.me.upgrade() {
            Some(me) => Value::Object(me),
            None => Value::Null,
        }
    }

    pub(crate) fn field(&self, slot: u32) -> Value {
        lock(&self.fields).get(slot as usize).cloned().unwrap_or_default()
    }

    pub(crate) fn set_field(&self, slot: u32, v: Value) {
        if let Some(f) = lock(&self.fields).get_mut(slot as usize) {
            *f = v;
        }
    }

    /// Whether it is a `name` (its class, a parent, an interface; by simple name).
    pub(crate) fn is_a(&self, name: &str) -> bool {
        let simple = name.rsplit('.').next().unwrap_or(name);
        if matches!(simple, "Object" | "GroovyObject") {
            return true;
        }
        let mut cur = Some(self.class);
        while let Some(c) = cur {
            let class = &self.unit.classes[c as usize];
            if class.name == simple || class.interfaces.iter().any(|i| &**i == simple) {
                return true;
            }
            cur = class.parent;
        }
        false
    }

    /// A method of its class or a parent that takes `nargs` arguments.
    fn method(&self, name: &str, nargs: usize) -> Option<(Arc<Proto>, bool)> {
        find_method(&self.unit, Some(self.class), name, nargs, false)
    }

    fn call_member(&self, cx: &mut Ctx<'_>, proto: &Proto, is_static: bool, mut args: Vec<Value>) -> R<Value> {
        if !is_static {
            args.insert(0, self.value());
        }
        eval::invoke(cx, proto, &self.unit, &[], pack(proto, args))
    }

    fn field_slot(&self, name: &str) -> Option<u32> {
        self.info().fields.iter().position(|f| &*f.name == name).map(|i| i as u32)
    }

    fn static_slot(&self, name: &str) -> Option<(u32, Option<Arc<super::Ty>>)> {
        let mut cur = Some(self.class);
        while let Some(c) = cur {
            let class = &self.unit.classes[c as usize];
            if let Some((_, g, t)) = class.statics.iter().find(|(n, _, _)| &**n == name) {
                return Some((*g, t.clone()));
            }
            cur = class.parent;
        }
        None
    }

    /// `Object`'s methods and the accessors Groovy generates for fields.
    fn builtin(&self, cx: &mut Ctx<'_>, name: &str, args: Vec<Value>) -> R<Value> {
        match (name, args.len()) {
            ("toString", 0) => return Ok(Value::str(self.to_string())),
            ("equals", 1) => return Ok(Value::Bool(of(&args[0]).is_some_and(|o| std::ptr::eq(o, self)))),
            ("hashCode", 0) => return Ok(Value::Int(self as *const Obj as usize as i32)),
            ("getClass", 0) => return Ok(Value::Class(self.info().name)),
            _ => {}
        }
        let prop = |p: &str| {
            let mut c = p.chars();
            c.next().map(|f| f.to_lowercase().chain(c).collect::<String>())
        };
        if let (Some(p), 0) = (name.strip_prefix("get").or_else(|| name.strip_prefix("is")).and_then(prop), args.len())
        {
            if let Some(slot) = self.field_slot(&p) {
                return Ok(self.field(slot));
            }
        }
        if let (Some(p), 1) = (name.strip_prefix("set").and_then(prop), args.len()) {
            if let Some(slot) = self.field_slot(&p) {
                let v = eval::convert(
                    cx,
                    self.info().fields[slot as usize].ty.as_ref(),
                    args.into_iter().next().unwrap_or_default(),
                )?;
                self.set_field(slot, v);
                return Ok(Value::Null);
            }
        }
        Err(Thrown::no_method(self.info().name, name))
    }

    /// What a call that expects a closure (a comparator, a task) calls on it: the method of the
    /// library interface it implements, else `call`.
    pub(crate) fn call_as_function(&self, cx: &mut Ctx<'_>, args: Vec<Value>) -> R<Value> {
        let n = args.len();
        for (iface, m) in super::resolve::INTERFACES {
            if !m.is_empty() && self.is_a(iface) {
                if let Some((p, s)) = self.method(m, n) {
                    return self.call_member(cx, &p, s, args);
                }
            }
        }
        Native::call(self, cx, "call", args)
    }

    /// Groovy's `==` on it: `compareTo` when it is `Comparable`, else its `equals`.
    pub(crate) fn equals_value(&self, cx: &mut Ctx<'_>, other: &Value) -> R<bool> {
        if other.is_null() {
            return Ok(false);
        }
        if self.is_a("Comparable") {
            if let Some((p, s)) = self.method("compareTo", 1) {
                let r = self.call_member(cx, &p, s, vec![other.clone()])?;
                return Ok(r.as_i64() == Some(0));
            }
        }
        match self.method("equals", 1) {
            Some((p, s)) => Ok(self.call_member(cx, &p, s, vec![other.clone()])?.truthy()),
            None => Ok(of(other).is_some_and(|o| std::ptr::eq(o, self))),
        }
    }

    /// Its text as a string or GString shows it: its `toString()`.
    pub(crate) fn text(&self, cx: &mut Ctx<'_>) -> R<String> {
        match self.method("toString", 0) {
            Some((p, s)) => {
                let v = self.call_member(cx, &p, s, Vec::new())?;
                Ok(eval::text_of(cx, &v)?)
            }
            None => Ok(self.to_string()),
        }
    }

    /// What the memory budget counts for it.
    fn size(&self) -> u64 {
        32 + lock(&self.fields).len() as u64 * budget::VALUE_BYTES
    }
}

impl Native for Obj {
    fn class_name(&self) -> &'static str {
        self.info().name
    }

    fn call(&self, cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> R<Value> {
        if let Some((p, s)) = self.method(method, args.len()) {
            return self.call_member(cx, &p, s, args);
        }
        // A field that holds a closure is called as a method, as in Groovy.
        if let Some(Value::Closure(c)) = self.field_slot(method).map(|slot| self.field(slot)) {
            return eval::call_closure(cx, &c, args);
        }
        self.builtin(cx, method, args)
    }

    /// `obj.name` from outside: its getter when the class has one, else the field.
    fn get(&self, cx: &mut Ctx<'_>, name: &str) -> R<Value> {
        let cap = crate::value::capitalize(name);
        for getter in [format!("get{cap}"), format!("is{cap}")] {
            if let Some((p, s)) = self.method(&getter, 0) {
                return self.call_member(cx, &p, s, Vec::new());
            }
        }
        if let Some(slot) = self.field_slot(name) {
            return Ok(self.field(slot));
        }
        if let Some((g, _)) = self.static_slot(name) {
            return Ok(lock(&self.unit.statics[g as usize]).clone());
        }
        if name == "class" {
            return Ok(Value::Class(self.info().name));
        }
        Err(missing_property(name, self.info().name))
    }

    /// `obj.name = v` from outside: its setter when the class has one, else the field.
    fn set(&self, cx: &mut Ctx<'_>, name: &str, value: Value) -> R<()> {
        let setter = format!("set{}", crate::value::capitalize(name));
        if let Some((p, s)) = self.method(&setter, 1) {
            return self.call_member(cx, &p, s, vec![value]).map(|_| ());
        }
        if let Some(slot) = self.field_slot(name) {
            let v = eval::convert(cx, self.info().fields[slot as usize].ty.as_ref(), value)?;
            self.set_field(slot, v);
            return Ok(());
        }
        if let Some((g, ty)) = self.static_slot(name) {
            let v = eval::convert(cx, ty.as_ref(), value)?;
            *lock(&self.unit.statics[g as usize]) = v;
            return Ok(());
        }
        Err(missing_property(name, self.info().name))
    }

    fn to_string(&self) -> String {
        format!("{}@{:x}", self.info().name, self as *const Obj as usize & 0xffff_ffff)
    }

    fn held(&self) -> u64 {
        self.size()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

fn missing_property(name: &str, class: &str) -> Thrown {
    Thrown::new("groovy.lang.MissingPropertyException", format!("No such property: {name} for class: {class}"))
}

/// The method `name` of class `from` or a parent that takes `nargs` arguments (its defaults
/// fill the rest): its code and whether it is static.
fn find_method(
    unit: &Unit,
    from: Option<u32>,
    name: &str,
    nargs: usize,
    statics_only: bool,
) -> Option<(Arc<Proto>, bool)> {
    let mut cur = from;
    while let Some(c) = cur {
        let class = &unit.classes[c as usize];
        for m in class.methods.iter().filter(|m| &*m.name == name && (m.is_static || !statics_only)) {
            if takes(&m.proto, if m.is_static { 0 } else { 1 }, nargs) {
                return Some((m.proto.clone(), m.is_static));
            }
        }
        cur = class.parent;
    }
    None
}

/// Whether code whose first `skip` parameters are implied (`this`) takes `nargs` arguments. A
/// last parameter that is an array (`String... xs`, `String[] xs`) takes any number, as Groovy's.
fn takes(proto: &Proto, skip: usize, nargs: usize) -> bool {
    let params = &proto.params[skip.min(proto.params.len())..];
    let required = params.iter().filter(|p| p.default.is_none()).count();
    if varargs(proto) {
        return nargs + 1 >= required;
    }
    (required..=params.len()).contains(&nargs)
}

fn varargs(proto: &Proto) -> bool {
    proto.params.last().and_then(|p| p.ty.as_ref()).is_some_and(|t| t.dims > 0)
}

/// The arguments of a call to `proto` (`this` first when it has one): the trailing ones packed
/// into an array for a variable-arguments method, unless one array is passed already.
fn pack(proto: &Proto, mut args: Vec<Value>) -> Vec<Value> {
    if !varargs(proto) {
        return args;
    }
    let n = proto.params.len();
    let array = match args.last() {
        Some(Value::List(l)) => l.kind == crate::value::ListKind::Array,
        Some(Value::Bytes(_) | Value::Null) => true,
        _ => false,
    };
    let passed_array = args.len() == n && array;
    if !passed_array && args.len() + 1 >= n {
        let rest = args.split_off(n - 1);
        args.push(Value::array(rest));
    }
    args
}

/// `new Foo(args)`.
pub(crate) fn new_object(cx: &mut Ctx<'_>, unit: &Arc<Unit>, c: u32, args: Vec<Value>) -> R<Value> {
    let class = &unit.classes[c as usize];
    let fields: Vec<Value> = class.fields.iter().map(|f| eval::zero_of(f.ty.as_ref())).collect();
    budget::charge(32 + fields.len() as u64 * budget::VALUE_BYTES)?;
    let obj: Arc<Obj> =
        Arc::new_cyclic(|me| Obj { unit: unit.clone(), class: c, fields: Mutex::new(fields), me: me.clone() });
    let this = Value::Object(obj);
    construct(cx, unit, c, &this, args)?;
    Ok(this)
}

/// Runs class `c`'s constructor that takes `args` on `this` (Groovy's default and
/// named-argument constructors when it declares none).
pub(crate) fn construct(cx: &mut Ctx<'_>, unit: &Arc<Unit>, c: u32, this: &Value, args: Vec<Value>) -> R<()> {
    let class = &unit.classes[c as usize];
    let named = match args.as_slice() {
        [Value::Map(m)] => Some(lock(&m.entries).clone()),
        _ => None,
    };
    if class.ctors.is_empty() {
        super_ctor(cx, unit, c, this, Vec::new())?;
        return match named {
            _ if args.is_empty() => Ok(()),
            Some(props) => {
                // The map of named arguments is dropped here: it leaves the budget.
                args.iter().for_each(budget::release_dropped);
                set_named(cx, this, props)
            }
            None => Err(no_ctor(class.name, &args)),
        };
    }
    if let Some(p) = class.ctors.iter().find(|p| takes(p, 1, args.len())) {
        let mut all = Vec::with_capacity(args.len() + 1);
        all.push(this.clone());
        all.extend(args);
        return eval::invoke(cx, p, unit, &[], pack(p, all)).map(|_| ());
    }
    match (named, class.ctors.iter().find(|p| takes(p, 1, 0))) {
        (Some(props), Some(p)) => {
            args.iter().for_each(budget::release_dropped);
            eval::invoke(cx, p, unit, &[], vec![this.clone()])?;
            set_named(cx, this, props)
        }
        _ => Err(no_ctor(class.name, &args)),
    }
}

fn set_named(cx: &mut Ctx<'_>, this: &Value, props: indexmap::IndexMap<crate::value::Key, Value>) -> R<()> {
    let Some(o) = of(this) else { return Ok(()) };
    for (k, v) in props {
        let name = eval::text_of(cx, &k.0)?;
        Native::set(o, cx, &name, v)?;
    }
    Ok(())
}

fn no_ctor(class: &str, args: &[Value]) -> Thrown {
    let types: Vec<&str> = args.iter().map(|a| a.type_name()).collect();
    Thrown::new(
        "groovy.lang.GroovyRuntimeException",
        format!("Could not find matching constructor for: {class}({})", types.join(", ")),
    )
}

/// A constructor's `super(args)` in class `c`: the parent's constructor, then `c`'s field
/// initialisers.
pub(crate) fn super_ctor(cx: &mut Ctx<'_>, unit: &Arc<Unit>, c: u32, this: &Value, args: Vec<Value>) -> R<()> {
    let class = &unit.classes[c as usize];
    match class.parent {
        Some(p) => construct(cx, unit, p, this, args)?,
        None if !args.is_empty() => return Err(no_ctor("java.lang.Object", &args)),
        None => {}
    }
    if !class.init.body.is_empty() {
        eval::invoke(cx, &class.init, unit, &[], vec![this.clone()])?;
    }
    Ok(())
}

/// `Foo.m(args)`: a static method of class `c` or of a parent.
pub(crate) fn call_static(cx: &mut Ctx<'_>, unit: &Arc<Unit>, c: u32, name: &str, args: Vec<Value>) -> R<Value> {
    match find_method(unit, Some(c), name, args.len(), true) {
        Some((p, _)) => eval::invoke(cx, &p, unit, &[], pack(&p, args)),
        None => Err(Thrown::new(
            "groovy.lang.MissingMethodException",
            format!("No signature of method: static {}.{name}() is applicable", unit.classes[c as usize].name),
        )),
    }
}

/// `super.m(args)`: the method of the parent (or `Object`'s), whatever `this` overrides.
pub(crate) fn call_super(
    cx: &mut Ctx<'_>,
    this: &Value,
    parent: Option<u32>,
    name: &str,
    args: Vec<Value>,
) -> R<Value> {
    let Some(o) = of(this) else { return Err(Thrown::no_method("Object", name)) };
    match find_method(&o.unit, parent, name, args.len(), false) {
        Some((p, s)) => o.call_member(cx, &p, s, args),
        None => o.builtin(cx, name, args),
    }
}

/// Runs the static initialisers of a script's classes, once for the compiled script.
pub(crate) fn ensure_statics(cx: &mut Ctx<'_>, unit: &Arc<Unit>) -> R<()> {
    let Some(init) = &unit.static_init else { return Ok(()) };
    let mut ready = lock(&unit.statics_ready);
    if !*ready {
        eval::invoke(cx, init, unit, &[], Vec::new())?;
        *ready = true;
    }
    Ok(())
}
