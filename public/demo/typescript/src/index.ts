import { formatDuration } from "./time";
import { Task, criticalPath, earliestStarts, parseTasks, workloadByOwner } from "./tasks";

/** A text Gantt chart: one row per task, one character per `scale` minutes. */
export function renderGantt(tasks: Task[], scale = 60): string {
  const start = earliestStarts(tasks);
  const width = Math.max(...tasks.map((t) => t.id.length));
  return tasks
    .map((t) => {
      const s = Math.floor((start.get(t.id) ?? 0) / scale);
      const len = Math.max(1, Math.ceil(t.duration / scale));
      return `${t.id.padEnd(width)} |${" ".repeat(s)}${"=".repeat(len)}`;
    })
    .join("\n");
}

/** A short report: end of the plan, critical chain and workload per owner. */
export function planSummary(text: string): string {
  const tasks = parseTasks(text);
  const path = criticalPath(tasks);
  const start = earliestStarts(tasks);
  const last = path[path.length - 1];
  const end = last ? (start.get(last.id) ?? 0) + last.duration : 0;
  const lines = [
    `tasks: ${tasks.length}, done after ${formatDuration(end)}`,
    `critical: ${path.map((t) => t.id).join(" -> ")}`,
  ];
  for (const [owner, minutes] of workloadByOwner(tasks)) lines.push(`  ${owner}: ${formatDuration(minutes)}`);
  return lines.join("\n");
}

const EXAMPLE = `
# id | owner | duration | after
design | ana | 2d
api    | ben | 3d     | design
ui     | ana | 1w     | design
tests  | ben | 1d 4h  | api, ui
`;

// Run as a script under Node.js (no dependency on its type definitions).
declare const process: { argv: string[] } | undefined;

if (typeof process !== "undefined" && process.argv[1]?.endsWith("index.js")) {
  console.log(planSummary(EXAMPLE));
  console.log(renderGantt(parseTasks(EXAMPLE), 240));
}
