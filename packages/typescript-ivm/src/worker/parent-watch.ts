import { Worker } from "node:worker_threads";

/** How often the watcher thread checks that the host is still this process's parent. */
const PARENT_CHECK_MS = 200;

/**
 * Ends this process with SIGKILL once its parent (the host) is gone, seen as
 * a change of `process.ppid` (an orphan is re-parented to init or a
 * subreaper). The check runs on a worker thread of its own because this
 * process's main thread can be blocked (waiting on an isolate's lock), and
 * it sends SIGKILL because `process.exit()` waits for isolate threads that
 * may never stop (a spinning `while (true) {}`). Linux has PR_SET_PDEATHSIG
 * for this, but Node offers no way to set it.
 */
export function watchParent(): void {
  const parent = process.ppid;
  const watcher = new Worker(
    `const { workerData } = require("node:worker_threads");
     setInterval(() => {
       if (process.ppid !== workerData.parent) process.kill(process.pid, "SIGKILL");
     }, workerData.intervalMs);`,
    { eval: true, workerData: { parent, intervalMs: PARENT_CHECK_MS }, env: {} },
  );
  // The thread must not keep the process alive on its own, and a failure of it must not end the process.
  watcher.unref();
  watcher.on("error", () => {});
}
