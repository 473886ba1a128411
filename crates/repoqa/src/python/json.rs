//! JSON text exactly as Python's `json.dumps(obj)` / `json.dump(obj, f)`
//! writes it with default arguments (docs/parity.md J1, J2): `", "` and `": "`
//! separators, no indentation, `ensure_ascii=True` (every character outside
//! `' '..='~'` as a lowercase `\uXXXX` escape, astral characters as surrogate
//! pairs) and floats in Python's `repr` (shortest round-trip digits, `1.0`,
//! `1e-05`, `1e+16`).
//!
//! The input is a `serde_json::Value` (built with `preserve_order`, so keys
//! keep the order the Python dict would have). Integers stay integers and
//! floats stay floats: serde_json keeps that distinction, as Python does.

use serde_json::{Map, Number, Value};

/// `json.dumps(value)` with Python's default arguments.
pub fn dumps(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

/// Append `json.dumps(value)` to `out`.
pub fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_str(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => write_object(out, map),
    }
}

fn write_object(out: &mut String, map: &Map<String, Value>) {
    out.push('{');
    for (i, (k, v)) in map.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_str(out, k);
        out.push_str(": ");
        write_value(out, v);
    }
    out.push('}');
}

fn write_number(out: &mut String, n: &Number) {
    if let Some(i) = n.as_i64() {
        out.push_str(&i.to_string());
    } else if let Some(u) = n.as_u64() {
        out.push_str(&u.to_string());
    } else if let Some(f) = n.as_f64() {
        out.push_str(&float_repr(f));
    } else {
        // Only reachable with serde_json's arbitrary_precision feature: the
        // literal text is then the best rendering.
        out.push_str(&n.to_string());
    }
}

/// A string literal as `json.dumps` writes it with `ensure_ascii=True`.
pub fn write_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    push_u_escape(out, *unit);
                }
            }
        }
    }
    out.push('"');
}

fn push_u_escape(out: &mut String, unit: u16) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push_str("\\u");
    for shift in [12, 8, 4, 0] {
        out.push(HEX[((unit >> shift) & 0xf) as usize] as char);
    }
}

/// Python's `float.__repr__` (which `json.dumps` uses for floats), including
/// `json`'s spellings of the non-finite values.
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "NaN".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.to_string();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.to_string();
    }
    // Rust's `{:e}` prints the shortest digits that round-trip (the same digit
    // string as Python's repr, which uses David Gay's shortest mode); only the
    // layout differs, so take the digits and exponent and lay them out the
    // way CPython's `format_float_short` does for mode 'r'.
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = match sci.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (sci.as_str(), 0),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let ndigits = digits.len() as i32;
    // Position of the decimal point relative to the digit string.
    let decpt = exp + 1;
    let mut out = String::new();
    if x.is_sign_negative() {
        out.push('-');
    }
    if decpt <= -4 || decpt > 16 {
        out.push_str(&digits[..1]);
        if ndigits > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let e = decpt - 1;
        out.push('e');
        out.push(if e < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", e.abs()));
    } else if decpt <= 0 {
        out.push_str("0.");
        for _ in 0..(-decpt) {
            out.push('0');
        }
        out.push_str(&digits);
    } else if decpt >= ndigits {
        out.push_str(&digits);
        for _ in 0..(decpt - ndigits) {
            out.push('0');
        }
        out.push_str(".0");
    } else {
        let (int_part, frac) = digits.split_at(decpt as usize);
        out.push_str(int_part);
        out.push('.');
        out.push_str(frac);
    }
    out
}

/// A float as a JSON value that Python would print with `repr` (serde_json
/// has no value for non-finite floats; they become `null`, which Python
/// never writes for a float — callers only pass finite scores).
pub fn float_value(x: f64) -> Value {
    Number::from_f64(x).map(Value::Number).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn float_repr_matches_python() {
        // Each pair printed by CPython 3.11 `repr(float)`.
        let cases: &[(f64, &str)] = &[
            (1.0, "1.0"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (0.05, "0.05"),
            (0.1, "0.1"),
            (0.952, "0.952"),
            (0.38333333333333336, "0.38333333333333336"),
            (1e-05, "1e-05"),
            (0.0001, "0.0001"),
            (0.00012345, "0.00012345"),
            (1.5e-05, "1.5e-05"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (1234567890123456.8, "1234567890123456.8"),
            (12.5, "12.5"),
            (100.0, "100.0"),
            (-2.5, "-2.5"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (1e22, "1e+22"),
            (1e-7, "1e-07"),
            (2.0 / 3.0, "0.6666666666666666"),
            (0.1 + 0.2, "0.30000000000000004"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
        ];
        for (x, want) in cases {
            assert_eq!(float_repr(*x), *want, "repr({x:?})");
        }
    }

    #[test]
    fn dumps_matches_python_layout() {
        // json.dumps({"a": [1, 2.0, None, True], "b": {}, "c": [], "d": "x"})
        let v = json!({"a": [1, 2.0, null, true], "b": {}, "c": [], "d": "x"});
        assert_eq!(dumps(&v), r#"{"a": [1, 2.0, null, true], "b": {}, "c": [], "d": "x"}"#);
        // Key order is insertion order (preserve_order), not sorted.
        let v = json!({"z": 1, "a": 2});
        assert_eq!(dumps(&v), r#"{"z": 1, "a": 2}"#);
        assert_eq!(dumps(&json!(-7)), "-7");
        assert_eq!(dumps(&json!(18446744073709551615u64)), "18446744073709551615");
    }

    #[test]
    fn strings_are_ascii_escaped_like_python() {
        // json.dumps('é"\\\n\r\t\b\f\x00\x1f\x7f/€😀') in CPython 3.11:
        let s = "é\"\\\n\r\t\u{8}\u{c}\u{0}\u{1f}\u{7f}/€😀";
        assert_eq!(
            dumps(&Value::String(s.into())),
            r#""\u00e9\"\\\n\r\t\b\f\u0000\u001f\u007f/\u20ac\ud83d\ude00""#
        );
        // Non-ASCII keys are escaped too.
        assert_eq!(dumps(&json!({"ü": "ok"})), r#"{"\u00fc": "ok"}"#);
    }

    #[test]
    fn parsed_floats_round_trip_through_repr() {
        for text in ["0.952", "0.38333333333333336", "1e-05", "0.9375", "1.0", "0.1"] {
            let v: Value = serde_json::from_str(text).unwrap();
            let back: Value = serde_json::from_str(&dumps(&v)).unwrap();
            assert_eq!(v, back, "{text}");
        }
        let v: Value = serde_json::from_str("1.0").unwrap();
        assert_eq!(dumps(&v), "1.0");
        let v: Value = serde_json::from_str("1").unwrap();
        assert_eq!(dumps(&v), "1");
    }
}
