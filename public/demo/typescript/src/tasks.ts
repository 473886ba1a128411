import { Minutes, parseDuration } from "./time";

export interface Task {
  id: string;
  owner: string;
  duration: Minutes;
  after: string[];
}

/** Parses lines "id | owner | duration | dep1, dep2" (blank lines and # comments skipped). */
export function parseTasks(text: string): Task[] {
  const tasks: Task[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith("#")) return;
    const cols = line.split("|").map((c) => c.trim());
    if (cols.length < 3) throw new Error(`line ${i + 1}: expected id | owner | duration`);
    const after = cols[3] ? cols[3].split(",").map((d) => d.trim()).filter(Boolean) : [];
    tasks.push({ id: cols[0], owner: cols[1], duration: parseDuration(cols[2]), after });
  });
  return tasks;
}

/** Kahn's algorithm; ties keep input order. Throws on a cycle or an unknown dependency. */
export function orderTasks(tasks: Task[]): Task[] {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const waiting = new Map(tasks.map((t) => [t.id, t.after.length]));
  for (const t of tasks) {
    for (const d of t.after) if (!byId.has(d)) throw new Error(`${t.id} waits for unknown ${d}`);
  }
  const ready = tasks.filter((t) => t.after.length === 0);
  const out: Task[] = [];
  while (ready.length > 0) {
    const t = ready.shift() as Task;
    out.push(t);
    for (const next of tasks) {
      if (!next.after.includes(t.id)) continue;
      const left = (waiting.get(next.id) ?? 0) - 1;
      waiting.set(next.id, left);
      if (left === 0) ready.push(next);
    }
  }
  if (out.length !== tasks.length) throw new Error("dependency cycle");
  return out;
}

/** Earliest start of every task when each starts as soon as its dependencies end. */
export function earliestStarts(tasks: Task[]): Map<string, Minutes> {
  const start = new Map<string, Minutes>();
  const byId = new Map(tasks.map((t) => [t.id, t]));
  for (const t of orderTasks(tasks)) {
    let s = 0;
    for (const d of t.after) {
      const dep = byId.get(d) as Task;
      s = Math.max(s, (start.get(d) ?? 0) + dep.duration);
    }
    start.set(t.id, s);
  }
  return start;
}

/** The chain of tasks that decides the end date, first task first. */
export function criticalPath(tasks: Task[]): Task[] {
  const start = earliestStarts(tasks);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  let last: Task | undefined;
  for (const t of tasks) {
    if (!last || (start.get(t.id) ?? 0) + t.duration > (start.get(last.id) ?? 0) + last.duration) last = t;
  }
  const path: Task[] = [];
  while (last) {
    path.unshift(last);
    const s = start.get(last.id) ?? 0;
    const prev: string | undefined = last.after.find((d) => (start.get(d) ?? 0) + (byId.get(d) as Task).duration === s);
    last = prev === undefined ? undefined : byId.get(prev);
  }
  return path;
}

/** Total work per owner, largest first. */
export function workloadByOwner(tasks: Task[]): Array<[string, Minutes]> {
  const sums = new Map<string, Minutes>();
  for (const t of tasks) sums.set(t.owner, (sums.get(t.owner) ?? 0) + t.duration);
  return [...sums.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}
