// Durations and clock times for the task planner (RepoQA Web demo repo).

export type Minutes = number;

const UNITS: Record<string, Minutes> = { w: 5 * 8 * 60, d: 8 * 60, h: 60, m: 1 };

/** "1d 2h 30m" -> minutes of work time (a day is 8 hours, a week 5 days). */
export function parseDuration(text: string): Minutes {
  const re = /(\d+(?:\.\d+)?)\s*([wdhm])/g;
  let total = 0;
  let matched = "";
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    total += parseFloat(m[1]) * UNITS[m[2]];
    matched += m[0];
  }
  if (matched.replace(/\s+/g, "") !== text.replace(/\s+/g, "")) {
    throw new Error(`not a duration: ${JSON.stringify(text)}`);
  }
  return Math.round(total);
}

/** Minutes -> the shortest "1d 2h 30m" form; zero is "0m". */
export function formatDuration(minutes: Minutes): string {
  if (minutes === 0) return "0m";
  const parts: string[] = [];
  let rest = Math.abs(minutes);
  for (const [unit, size] of Object.entries(UNITS)) {
    const n = Math.floor(rest / size);
    if (n > 0) {
      parts.push(`${n}${unit}`);
      rest -= n * size;
    }
  }
  return (minutes < 0 ? "-" : "") + parts.join(" ");
}

/** "09:30" -> minutes since midnight; rejects impossible times. */
export function parseClock(text: string): Minutes {
  const m = /^(\d{1,2}):(\d{2})$/.exec(text.trim());
  if (!m) throw new Error(`not a clock time: ${text}`);
  const h = Number(m[1]);
  const min = Number(m[2]);
  if (h > 23 || min > 59) throw new Error(`not a clock time: ${text}`);
  return h * 60 + min;
}

/** Whether two half-open intervals [aStart, aEnd) and [bStart, bEnd) share time. */
export function intervalsOverlap(aStart: Minutes, aEnd: Minutes, bStart: Minutes, bEnd: Minutes): boolean {
  return aStart < bEnd && bStart < aEnd;
}

/** Merges overlapping or touching intervals; the result is sorted. */
export function mergeIntervals(spans: Array<[Minutes, Minutes]>): Array<[Minutes, Minutes]> {
  const sorted = [...spans].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: Array<[Minutes, Minutes]> = [];
  for (const [s, e] of sorted) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) {
      last[1] = Math.max(last[1], e);
    } else {
      out.push([s, e]);
    }
  }
  return out;
}
