//! What a run's progress says about time: how long it has taken and about
//! how long the rest will take, in hours, minutes and seconds. The CLI's
//! progress line and the Run page both show these.
//!
//! The estimate is the throughput so far (answers and failures per second
//! since the start) applied to the tasks left. It includes time requests
//! spent queued at the server, so a server that answers one request at a
//! time is not estimated as if it answered several. Before the first reply
//! there is no estimate (never "0 s").

/// Milliseconds left for `total - done` tasks at the pace of `done` in
/// `elapsed_ms`; None before the first task is done.
pub fn eta_ms(elapsed_ms: f64, done: usize, total: usize) -> Option<f64> {
    (done > 0 && total >= done && elapsed_ms.is_finite())
        .then(|| elapsed_ms.max(0.0) * (total - done) as f64 / done as f64)
}

/// `ms` as people read a duration: "42 s", "3 min 05 s", "2 h 07 min".
pub fn duration_label(ms: f64) -> String {
    let s = if ms.is_finite() { (ms.max(0.0) / 1000.0).round() as u64 } else { 0 };
    if s >= 3600 {
        format!("{} h {:02} min", s / 3600, s % 3600 / 60)
    } else if s >= 60 {
        format!("{} min {:02} s", s / 60, s % 60)
    } else {
        format!("{s} s")
    }
}

/// "about 3 min 05 s left", or what is known before the first reply.
pub fn time_left_label(elapsed_ms: f64, done: usize, total: usize) -> String {
    match eta_ms(elapsed_ms, done, total) {
        Some(_) if done >= total => "all done".to_string(),
        Some(ms) if ms < 500.0 => "less than a second left".to_string(),
        Some(ms) => format!("about {} left", duration_label(ms)),
        None if total == 0 => "nothing left".to_string(),
        None => "time left known after the first reply".to_string(),
    }
}

/// `1234567` as "1,234,567".
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_estimate_before_the_first_reply_and_durations_in_h_min_s() {
        assert_eq!(eta_ms(26_000.0, 0, 10), None);
        assert_eq!(time_left_label(26_000.0, 0, 10), "time left known after the first reply");
        assert_eq!(eta_ms(10_000.0, 2, 10), Some(40_000.0));
        assert_eq!(time_left_label(10_000.0, 2, 10), "about 40 s left");
        assert_eq!(time_left_label(10_000.0, 99, 100), "less than a second left");
        assert_eq!(time_left_label(10_000.0, 100, 100), "all done");
        assert_eq!(duration_label(185_000.0), "3 min 05 s");
        assert_eq!(duration_label(7_620_000.0), "2 h 07 min");
        assert_eq!(duration_label(f64::NAN), "0 s");
        assert_eq!(duration_label(-5.0), "0 s");
    }
}
