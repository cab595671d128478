// Resident memory of the host and of its sandbox process, from /proc (Linux).
import { readFileSync } from "node:fs";

/** Kilobytes of a `/proc/<pid>/status` field (VmRSS, VmHWM), or 0 once the process is gone. */
function statusKb(pid, field) {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

export const rssMb = (pid) => statusKb(pid, "VmRSS") / 1024;

/** The direct children of a process (the host's sandbox process is its only forked Node child). */
export function childrenOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Samples the RSS of the host and of whatever children it has, every `everyMs`, keeping the peaks. */
export function watchMemory(hostPid, everyMs = 25) {
  const peak = { host: 0, sandbox: 0 };
  const sample = () => {
    peak.host = Math.max(peak.host, rssMb(hostPid));
    const sandbox = childrenOf(hostPid).reduce((sum, pid) => sum + rssMb(pid), 0);
    peak.sandbox = Math.max(peak.sandbox, sandbox);
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

/** CPU time (user + system) a process used so far, in ms; 0 once it is gone. */
function cpuOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** `/proc/<pid>/stat` counts in clock ticks, 100 per second on Linux. */
const CLOCK_TICKS = 100;

/** CPU time of the host and of its children so far (a sandbox process replaced meanwhile is not counted). */
export function cpuTimeMs(hostPid) {
  return { host: cpuOf(hostPid), sandbox: childrenOf(hostPid).reduce((sum, pid) => sum + cpuOf(pid), 0) };
}

export function currentMemory(hostPid) {
  return { host: rssMb(hostPid), sandbox: childrenOf(hostPid).reduce((sum, pid) => sum + rssMb(pid), 0) };
}
