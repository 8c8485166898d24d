//! The syntax tree every script dialect parses into: Groovy, BeanShell/Java, JavaScript and
//! JEXL share one tree, and the dialect survives only where the meaning differs (`Lang`).

use std::sync::Arc;

/// Where a node starts in the script text: 1-based line and column (in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pos {
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub col: u32,
}

/// A parsed script: its imports and its statements, in order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Program {
    pub imports: Vec<Import>,
    pub body: Vec<Stmt>,
}

/// `import a.b.C;`, `import a.b.*;`, `import static a.b.C.m;`, `import a.b.C as D`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Import {
    /// The dotted path as written, without `.*`.
    pub path: String,
    pub star: bool,
    pub is_static: bool,
    pub alias: Option<String>,
    pub pos: Pos,
}

/// A type as written in a declaration, cast, `new`, `instanceof` or `as`: `int`, `String`,
/// `java.util.List<String>` (generic arguments are dropped), `byte[]` (`dims` = 1).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TypeName {
    pub name: String,
    pub dims: u8,
    pub pos: Pos,
}

/// A parameter of a closure, lambda or function: `x`, `String x`, `x = 1`.
#[derive(Debug, Clone)]
pub(crate) struct Param {
    pub name: String,
    pub ty: Option<TypeName>,
    pub default: Option<Expr>,
}

/// The body of a closure, lambda or function, shared (closures are values made at run time).
#[derive(Debug, Clone)]
pub(crate) struct Body {
    pub params: Vec<Param>,
    /// A closure written without `->` takes one implicit parameter, `it` (Groovy).
    pub implicit_it: bool,
    pub stmts: Vec<Stmt>,
}

#[derive(Debug, Clone)]
pub(crate) struct Stmt {
    pub kind: StmtKind,
    pub pos: Pos,
}

#[derive(Debug, Clone)]
pub(crate) enum StmtKind {
    /// An expression statement; the value of the last one is the script's result.
    Expr(Expr),
    /// `def x = 1`, `int x`, `var x = 1` (JS/Java), `String a = "", b;` gives one `Var` each.
    /// `ty` is `None` for `def`/`var`/`let`/`const` and for BeanShell's untyped assignment
    /// (which parses as an `Assign` expression instead).
    Var {
        ty: Option<TypeName>,
        name: String,
        init: Option<Expr>,
    },
    /// Groovy's `def (a, b) = [1, 2]`.
    MultiVar {
        names: Vec<String>,
        init: Expr,
    },
    If {
        cond: Expr,
        then: Box<Stmt>,
        els: Option<Box<Stmt>>,
    },
    While {
        cond: Expr,
        body: Box<Stmt>,
    },
    DoWhile {
        body: Box<Stmt>,
        cond: Expr,
    },
    /// `for (init; cond; update)`.
    For {
        init: Vec<Stmt>,
        cond: Option<Expr>,
        update: Vec<Expr>,
        body: Box<Stmt>,
    },
    /// `for (x in xs)`, `for (T x : xs)`; JavaScript's `for (k in obj)` walks keys (`keys`),
    /// its `for (v of xs)` values.
    ForEach {
        ty: Option<TypeName>,
        var: String,
        iter: Expr,
        keys: bool,
        body: Box<Stmt>,
    },
    Block(Vec<Stmt>),
    Return(Option<Expr>),
    Break(Option<String>),
    Continue(Option<String>),
    Throw(Expr),
    Try {
        body: Vec<Stmt>,
        catches: Vec<Catch>,
        finally: Option<Vec<Stmt>>,
    },
    /// `switch (x) { case a: case b: ...; default: ... }`: one arm per group of labels;
    /// an empty `labels` is `default`. Arms fall through as in Java unless they `break`.
    Switch {
        subject: Expr,
        arms: Vec<SwitchArm>,
    },
    /// Groovy/Java `assert cond : message`; `text` is the condition's source, for the message.
    Assert {
        cond: Expr,
        message: Option<Expr>,
        text: String,
    },
    /// `def f(a, b) { ... }` at script level, `function f(a) { ... }` (JS), or a typed
    /// method `String f(int a) { ... }`.
    Function {
        name: String,
        body: Arc<Body>,
    },
    Labeled {
        label: String,
        body: Box<Stmt>,
    },
    /// A Groovy class or interface declared in the script (script level only).
    Class(Arc<ClassDecl>),
    Empty,
}

/// `class Name extends Base implements I, J { fields, constructors, methods }`, or an
/// `interface` (its methods without bodies are dropped: only its constants remain).
#[derive(Debug, Clone)]
pub(crate) struct ClassDecl {
    pub name: String,
    pub interface: bool,
    pub extends: Option<TypeName>,
    pub implements: Vec<TypeName>,
    pub fields: Vec<FieldDecl>,
    pub ctors: Vec<MethodDecl>,
    pub methods: Vec<MethodDecl>,
    pub pos: Pos,
}

/// A field: `int n = 1`, `def x`, `static final String A = "a"`.
#[derive(Debug, Clone)]
pub(crate) struct FieldDecl {
    pub name: String,
    pub ty: Option<TypeName>,
    pub init: Option<Expr>,
    pub is_static: bool,
    pub pos: Pos,
}

/// A method or constructor of a declared class.
#[derive(Debug, Clone)]
pub(crate) struct MethodDecl {
    pub name: String,
    pub body: Arc<Body>,
    pub is_static: bool,
    pub pos: Pos,
}

#[derive(Debug, Clone)]
pub(crate) struct Catch {
    /// `catch (IOException | RuntimeException e)`; empty for JavaScript's untyped catch.
    pub types: Vec<TypeName>,
    pub var: String,
    pub body: Vec<Stmt>,
}

#[derive(Debug, Clone)]
pub(crate) struct SwitchArm {
    pub labels: Vec<Expr>,
    pub body: Vec<Stmt>,
}

#[derive(Debug, Clone)]
pub(crate) struct Expr {
    pub kind: ExprKind,
    pub pos: Pos,
}

/// A literal number as written: `1` (Int), `1L`, `1.5` (Decimal in Groovy, Double elsewhere),
/// `1.5d`/`1e3`, `1.5f` (Float, kept as a double), `0x1F`, `1_000`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Num {
    Int(i32),
    Long(i64),
    /// The literal's text, exact (Groovy's BigDecimal literals).
    Decimal(String),
    Double(f64),
    Float(f64),
    /// `1G`/ `123456789012345678901234` that fits no long: kept as text.
    BigInt(String),
}

/// A piece of a GString (`"a ${b} $c.d"`): literal text or an embedded expression.
#[derive(Debug, Clone)]
pub(crate) enum Part {
    Lit(String),
    Expr(Expr),
}

#[derive(Debug, Clone)]
pub(crate) enum ExprKind {
    Null,
    Bool(bool),
    Num(Num),
    /// A string without interpolation ('single', "double" without `$`, slashy /re/, char
    /// literals of BeanShell/Java `'a'` when `Char`).
    Str(String),
    Char(char),
    /// A double-quoted (or triple-quoted, or slashy) Groovy string with `${...}`/`$name`.
    GString(Vec<Part>),
    /// A name: a local, a binding (`vars`), a script property, or a class (`Math`); the
    /// resolver decides.
    Ident(String),
    This,
    /// `[a, b]` (Groovy list, JS array literal), Java's `{1, 2}` array initialiser.
    List(Vec<Expr>),
    /// `[a: 1, (k): 2]` (Groovy), `[:]`, `{a: 1, "b": 2}` (JS object). A bare-name key is a
    /// `Str` key.
    Map(Vec<(Expr, Expr)>),
    /// `a..b`, `a..<b`.
    Range {
        from: Box<Expr>,
        to: Box<Expr>,
        exclusive: bool,
    },
    Unary {
        op: UnOp,
        expr: Box<Expr>,
    },
    /// `++x`, `x--`, ...
    IncDec {
        target: Box<Expr>,
        inc: bool,
        prefix: bool,
    },
    Binary {
        op: BinOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    /// `x instanceof T` (`negated`: Groovy's `!instanceof`).
    InstanceOf {
        expr: Box<Expr>,
        ty: TypeName,
        negated: bool,
    },
    /// `a = b`, `a += b` (`op` = `Some(Add)`), `a ?= b` not supported.
    Assign {
        target: Box<Expr>,
        op: Option<BinOp>,
        value: Box<Expr>,
    },
    Ternary {
        cond: Box<Expr>,
        then: Box<Expr>,
        els: Box<Expr>,
    },
    /// `a ?: b`.
    Elvis {
        left: Box<Expr>,
        right: Box<Expr>,
    },
    /// `a.b`, `a?.b` (`safe`), `a*.b` (`spread`), `a.@b` treated as `a.b`.
    Property {
        target: Box<Expr>,
        name: String,
        safe: bool,
        spread: bool,
    },
    /// `a[i]`, `a?[i]`.
    Index {
        target: Box<Expr>,
        index: Box<Expr>,
        safe: bool,
    },
    /// A call: `f(x)` (`target` = None: a function, a closure in a variable, or a script
    /// method such as `println`), `a.m(x)`, `a?.m(x)`, `a*.m(x)`, `log.info "x"`. A trailing
    /// closure (`list.each { }`) is the last argument; Groovy named arguments
    /// (`m(a: 1, b: 2)`) arrive as one `Map` first argument.
    Call {
        target: Option<Box<Expr>>,
        name: String,
        args: Vec<Expr>,
        safe: bool,
        spread: bool,
    },
    /// Calling a value: `(expr)(args)`, `closure.call(...)` is a `Call` named `call`.
    CallValue {
        callee: Box<Expr>,
        args: Vec<Expr>,
    },
    /// `new T(args)`; an anonymous class body is refused by the parser.
    New {
        ty: TypeName,
        args: Vec<Expr>,
    },
    /// `new int[n]`, `new String[]{"a", "b"}`: sizes or an initialiser.
    NewArray {
        ty: TypeName,
        dims: Vec<Expr>,
        init: Option<Vec<Expr>>,
    },
    /// `(T) x` (`coerce` false) or `x as T` (`coerce` true: `"12" as int` is 12).
    Cast {
        ty: TypeName,
        expr: Box<Expr>,
        coerce: bool,
    },
    /// `{ a, b -> ... }`, `{ it * 2 }`, `(a, b) -> ...` (Java lambda), `function (a) {...}`
    /// and `a => ...` (JS).
    Closure(Arc<Body>),
    /// `String.class`, `T[].class`.
    ClassLit(TypeName),
    /// `Foo::bar`, `this.&bar` (method pointers).
    MethodRef {
        target: Box<Expr>,
        name: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UnOp {
    Neg,
    Plus,
    Not,
    BitNot,
    /// JavaScript's `typeof x`.
    TypeOf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    /// Groovy's `intdiv` is a method; `%` is remainder.
    Rem,
    /// `**`
    Pow,
    Eq,
    Ne,
    /// JavaScript's `===`, Groovy's `===` (identity).
    StrictEq,
    StrictNe,
    Lt,
    Le,
    Gt,
    Ge,
    /// `<=>`
    Cmp,
    And,
    Or,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    UShr,
    /// `x in xs`.
    In,
    /// `!in`
    NotIn,
    /// `s =~ re`: a Matcher (true when it finds).
    Find,
    /// `s ==~ re`: whole-string match.
    Match,
}
