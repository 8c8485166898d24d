//! `Random` (Java's exact generator), `ThreadLocalRandom` and `UUID`.

use super::*;

// ---- Random ----

pub(super) const MULTIPLIER: i64 = 0x5DEECE66D;
pub(super) const MASK: i64 = (1 << 48) - 1;

/// Java 17's `RandomSupport.boundedNextInt`/`boundedNextLong`, for `int` and `long`.
macro_rules! bounded_next {
    ($rng:expr, $origin:expr, $bound:expr, $next:ident, $t:ty, $u:ty) => {{
        let (origin, bound) = ($origin, $bound);
        if origin >= bound {
            return Err(illegal_arg("bound must be greater than origin"));
        }
        let mut r = $rng.$next();
        let n = bound.wrapping_sub(origin);
        let m = n.wrapping_sub(1);
        if n & m == 0 {
            return Ok((r & m).wrapping_add(origin));
        }
        if n > 0 {
            let mut u = ((r as $u) >> 1) as $t;
            loop {
                r = u % n;
                if u.wrapping_add(m).wrapping_sub(r) >= 0 {
                    return Ok(r + origin);
                }
                u = (($rng.$next() as $u) >> 1) as $t;
            }
        }
        while r < origin || r >= bound {
            r = $rng.$next();
        }
        Ok(r)
    }};
}

/// `java.util.Random`: Java's 48-bit linear congruential generator, so `new Random(seed)`
/// gives the numbers Java gives.
#[derive(Debug)]
pub(crate) struct JavaRandom {
    pub(super) class: &'static str,
    pub(super) state: Mutex<(i64, Option<f64>)>,
}

impl JavaRandom {
    pub(crate) fn new(class: &'static str, seed: i64) -> JavaRandom {
        JavaRandom { class, state: Mutex::new(((seed ^ MULTIPLIER) & MASK, None)) }
    }

    pub(super) fn next(&self, bits: u32) -> i32 {
        let mut s = lock(&self.state);
        s.0 = (s.0.wrapping_mul(MULTIPLIER).wrapping_add(0xB)) & MASK;
        (s.0 >> (48 - bits)) as i32
    }

    pub(super) fn next_int(&self) -> i32 {
        self.next(32)
    }

    pub(super) fn next_long(&self) -> i64 {
        ((self.next(32) as i64) << 32).wrapping_add(self.next(32) as i64)
    }

    pub(crate) fn next_int_bound(&self, bound: i32) -> Result<i32, Thrown> {
        if bound <= 0 {
            return Err(illegal_arg("bound must be positive"));
        }
        let mut r = self.next(31);
        let m = bound - 1;
        if bound & m == 0 {
            return Ok(((bound as i64 * r as i64) >> 31) as i32);
        }
        let mut u = r;
        loop {
            r = u % bound;
            if u.wrapping_sub(r).wrapping_add(m) >= 0 {
                return Ok(r);
            }
            u = self.next(31);
        }
    }

    pub(super) fn next_int_range(&self, origin: i32, bound: i32) -> Result<i32, Thrown> {
        bounded_next!(self, origin, bound, next_int, i32, u32)
    }

    pub(super) fn next_long_range(&self, origin: i64, bound: i64) -> Result<i64, Thrown> {
        bounded_next!(self, origin, bound, next_long, i64, u64)
    }

    pub(super) fn next_double(&self) -> f64 {
        let hi = (self.next(26) as i64) << 27;
        (hi + self.next(27) as i64) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    pub(super) fn next_gaussian(&self) -> f64 {
        if let Some(g) = lock(&self.state).1.take() {
            return g;
        }
        loop {
            let v1 = 2.0 * self.next_double() - 1.0;
            let v2 = 2.0 * self.next_double() - 1.0;
            let s = v1 * v1 + v2 * v2;
            if s < 1.0 && s != 0.0 {
                let multiplier = (-2.0 * s.ln() / s).sqrt();
                lock(&self.state).1 = Some(v2 * multiplier);
                return v1 * multiplier;
            }
        }
    }
}

impl Native for JavaRandom {
    fn class_name(&self) -> &'static str {
        self.class
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        let i = |n: usize| int_arg(&args, n);
        let f = |n: usize| super::super::f64_arg(&args, n);
        Ok(match (method, args.len()) {
            ("nextInt", 0) => Value::Int(self.next_int()),
            ("nextInt", 1) => Value::Int(self.next_int_bound(i(0)? as i32)?),
            ("nextInt", 2) => Value::Int(self.next_int_range(i(0)? as i32, i(1)? as i32)?),
            ("nextLong", 0) => Value::Long(self.next_long()),
            ("nextLong", 1) => {
                let bound = i(0)?;
                if bound <= 0 {
                    return Err(illegal_arg("bound must be positive"));
                }
                Value::Long(self.next_long_range(0, bound)?)
            }
            ("nextLong", 2) => Value::Long(self.next_long_range(i(0)?, i(1)?)?),
            ("nextDouble", 0) => Value::Double(self.next_double()),
            ("nextDouble", 1 | 2) => {
                let (origin, bound) = if args.len() == 1 { (0.0, f(0)?) } else { (f(0)?, f(1)?) };
                if origin >= bound {
                    return Err(illegal_arg("bound must be greater than origin"));
                }
                let r = self.next_double() * (bound - origin) + origin;
                Value::Double(if r >= bound { f64::from_bits(bound.to_bits() - 1) } else { r })
            }
            ("nextFloat", 0) => Value::Double(self.next(24) as f64 / (1 << 24) as f64),
            ("nextBoolean", 0) => Value::Bool(self.next(1) != 0),
            ("nextGaussian", 0) => Value::Double(self.next_gaussian()),
            ("setSeed", 1) => {
                *lock(&self.state) = ((i(0)? ^ MULTIPLIER) & MASK, None);
                Value::Null
            }
            ("ints" | "longs" | "doubles", _) => return Err(no_method(self.class, method)),
            _ => return Err(no_method(self.class, method)),
        })
    }
}

// ---- UUID ----

/// `java.util.UUID`: 16 bytes.
#[derive(Debug)]
pub(crate) struct Uuid(pub [u8; 16]);

impl Uuid {
    pub(super) fn with_version(mut b: [u8; 16], version: u8) -> Uuid {
        b[6] = (b[6] & 0x0f) | (version << 4);
        b[8] = (b[8] & 0x3f) | 0x80;
        Uuid(b)
    }

    pub(super) fn parse(s: &str) -> Option<Uuid> {
        let parts: Vec<&str> = s.split('-').collect();
        if parts.len() != 5 || parts.iter().any(|p| p.is_empty() || p.len() > 16) {
            return None;
        }
        let widths = [8, 4, 4, 4, 12];
        let mut hex = String::new();
        for (p, w) in parts.iter().zip(widths) {
            let n = u64::from_str_radix(p, 16).ok()?;
            hex.push_str(&format!("{n:0w$x}"));
            if hex.len() % 2 != 0 || p.len() > w && p.trim_start_matches('0').len() > w {
                return None;
            }
        }
        let mut b = [0u8; 16];
        for (i, byte) in b.iter_mut().enumerate() {
            *byte = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
        }
        Some(Uuid(b))
    }

    pub(super) fn halves(&self) -> (i64, i64) {
        let mut hi = [0u8; 8];
        let mut lo = [0u8; 8];
        hi.copy_from_slice(&self.0[..8]);
        lo.copy_from_slice(&self.0[8..]);
        (i64::from_be_bytes(hi), i64::from_be_bytes(lo))
    }
}

pub(super) fn uuid_static(method: &str, args: &[Value]) -> Result<Value, Thrown> {
    match (method, args.len()) {
        ("randomUUID", 0) => Ok(obj(Uuid::with_version(rand::random::<[u8; 16]>(), 4))),
        ("fromString", 1) => {
            let s = str_arg(args, 0)?;
            Uuid::parse(&s).map(obj).ok_or_else(|| illegal_arg(format!("Invalid UUID string: {s}")))
        }
        ("nameUUIDFromBytes", 1) => Ok(obj(Uuid::with_version(super::super::codec::md5(&bytes_of(&args[0])?), 3))),
        _ => Err(no_method("java.util.UUID", method)),
    }
}

impl Native for Uuid {
    native_base!("java.util.UUID");
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        match (method, args.len()) {
            ("toString", 0) => Ok(Value::str(Native::to_string(self))),
            ("version", 0) => Ok(Value::Int((self.0[6] >> 4) as i32)),
            ("variant", 0) => Ok(Value::Int(2)),
            ("getMostSignificantBits", 0) => Ok(Value::Long(self.halves().0)),
            ("getLeastSignificantBits", 0) => Ok(Value::Long(self.halves().1)),
            ("hashCode", 0) => {
                let (h, l) = self.halves();
                let x = h ^ l;
                Ok(Value::Int(((x >> 32) as i32) ^ (x as i32)))
            }
            ("equals", 1) => Ok(Value::Bool(super::super::downcast::<Uuid>(&args[0]).is_some_and(|o| o.0 == self.0))),
            ("compareTo", 1) => {
                let o = super::super::downcast::<Uuid>(&args[0])
                    .ok_or_else(|| illegal_arg("compareTo: a UUID was expected"))?;
                Ok(Value::Int(self.halves().cmp(&o.halves()) as i32))
            }
            _ => Err(no_method("java.util.UUID", method)),
        }
    }
    fn to_string(&self) -> String {
        let h: String = self.0.iter().map(|b| format!("{b:02x}")).collect();
        format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..])
    }
    fn equals(&self, other: &dyn Native) -> bool {
        other.as_any().downcast_ref::<Uuid>().is_some_and(|o| o.0 == self.0)
    }
}
