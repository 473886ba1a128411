//! Floor 0: numbers as the page writes them.

/// Human-readable byte count.
pub fn bytes_label(n: usize) -> String {
    let n = n as f64;
    if n >= 1024.0 * 1024.0 * 1024.0 {
        format!("{:.2} GiB", n / (1024.0 * 1024.0 * 1024.0))
    } else if n >= 1024.0 * 1024.0 {
        format!("{:.1} MiB", n / (1024.0 * 1024.0))
    } else if n >= 1024.0 {
        format!("{:.1} KiB", n / 1024.0)
    } else {
        format!("{n} B")
    }
}

/// A BLEU similarity as every table and detail line writes it (four
/// decimals; the exact value is in the row's `data-` attribute and the
/// downloads).
pub fn similarity(x: f64) -> String {
    format!("{x:.4}")
}

/// "1 repo", "10 repos": a count with the noun in agreement.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A whole number with thousands separated by commas ("16,384").
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
